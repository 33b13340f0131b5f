"""Print the project's parameters with every default filled in, validated:

    python -m kgp_kedro.pipelines         # conf/base + conf/local (or KEDRO_ENV)

Every key printed can be overridden in ``conf/<env>/parameters*.yml`` or with
``kedro run --params key=value``."""
from __future__ import annotations

import yaml

from kgp_kedro.pipelines.parameter_tree import complete_parameters
from kgp_kedro.pipelines.parameters import project_parameters


def main() -> None:
    print(yaml.safe_dump(complete_parameters(project_parameters()), sort_keys=False))  # noqa: T201


if __name__ == "__main__":
    main()
