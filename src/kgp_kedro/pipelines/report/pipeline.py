"""report pipeline: ``qa_summary`` -> Table 1, Table 2, reader costs and the F1 figure. It
carries its upstream (through score), so ``kedro run --pipeline=report`` goes end to end."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.config import load_retrieval_methods
from kgp_kedro.pipelines.report.nodes import tabulate_costs, tabulate_qa
from kgp_kedro.pipelines.score.pipeline import create_pipeline as score_pipeline


def reporting_pipeline() -> Pipeline:
    methods = list(load_retrieval_methods())
    return Pipeline([
        node(tabulate_qa, ["qa_summary", "params:report"],
             ["qa_table1", "qa_table2", "qa_figure_html", "qa_figure_json"], name="tabulate_qa"),
        node(tabulate_costs, ["qa_summary", "qa_questions", "params:retrieve.methods",
                              *[f"retrieved_{m}" for m in methods]],
             "reader_costs", name="tabulate_costs"),
    ], tags=["report"])


def create_pipeline(**kwargs) -> Pipeline:
    return score_pipeline() + reporting_pipeline()
