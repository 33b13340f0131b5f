"""retrieval_quality: supporting-passage recall / precision / SP-EM @k of every method."""
