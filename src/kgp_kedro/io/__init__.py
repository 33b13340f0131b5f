"""Kedro datasets of this project, named in ``conf/*/catalog.yml`` by their full path."""
