"""The plumbing every role uses, knowing none of them: atomic writes (:mod:`.atomic`), memory
release (:mod:`.memory`), progress lines on long loops (:mod:`.progress`), a map over a Dask
cluster or a loop (:mod:`.parallel`) and the registry class (:mod:`.registry`)."""
