"""ask: cited answers to the questions over a retrieval method's contexts, and the answers
report (``kedro run --env ask``)."""
