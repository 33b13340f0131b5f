"""score: EM, F1 and Acc of every method's answers, on one denominator, with breakdowns."""
