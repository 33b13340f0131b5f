"""Record the newest run's ``kg_quality_summary`` (Figure 5's table) in the committed results
store, then regenerate the tables:

    kedro run --pipelines=kg_quality [--env X]       # or: make run
    python scripts/record_kg_quality.py NAME [--env X] [--run "what ran, in words"]
    python -m kgp_kedro.reporting.results

``results/kg_quality/NAME.csv`` gets the summary's rows (a source, variant and setting measured
again replaces its row) with where they were measured: the CPU, the load average now (take it
right after the run), the date and the git commit.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the measurement: results/kg_quality/NAME.csv")
    parser.add_argument("--env", default=None, help="the Kedro env the run used")
    parser.add_argument("--run", default=None, help="the run's setting in words")
    args = parser.parse_args()
    os.environ.setdefault("KEDRO_DISABLE_TELEMETRY", "1")
    from kedro.framework.session import KedroSession
    from kedro.framework.startup import bootstrap_project

    from kgp_kedro.reporting.kg_quality_results import KG_QUALITY_COLUMNS, KG_QUALITY_KEY
    from kgp_kedro.reporting.measurements import provenance, record_measurement

    bootstrap_project(ROOT)
    with KedroSession.create(project_path=ROOT, env=args.env) as session:
        summary = session.load_context().catalog.load("kg_quality_summary")
    run = args.run or f"kedro run --pipelines=kg_quality, env {args.env or 'base'}"
    rows = summary.assign(**provenance(run, ROOT))
    path = ROOT / "results" / "kg_quality" / f"{args.name}.csv"
    record_measurement(rows, path, KG_QUALITY_COLUMNS, KG_QUALITY_KEY)
    print(f"recorded {len(rows)} rows in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
