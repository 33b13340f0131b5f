"""train: the models the configured retrieve methods name as ``trained:<name>``, fine-tuned on
the train files of ``train.sources`` (never dev)."""
