"""Training the retrievers and traversal agents on train splits (never dev): reasoning paths in
hop order (:mod:`.paths`), next-passage examples with hard negatives (:mod:`.examples`), the
train files read as collections (:mod:`.sources`) and the bi-encoders fine-tuned on them
(:mod:`.encoder`), each cached by a hash of its data and parameters (:mod:`.artifacts`)."""
