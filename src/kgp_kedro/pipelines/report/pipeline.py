"""report: ``qa_summary`` -> Table 1, Table 2, reader costs and the F1 figure."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.report.nodes import tabulate_costs, tabulate_qa


def create_pipeline(params) -> Pipeline:
    return Pipeline([
        node(tabulate_qa, ["qa_summary", "params:report", "qa_scores"],
             ["qa_table1", "qa_table2", "qa_figure_html", "qa_figure_json"], name="tabulate_qa"),
        node(tabulate_costs, ["qa_summary", "qa_questions", "params:retrieve.methods",
                              *[f"retrieved_{m}" for m in params.methods]],
             "reader_costs", name="tabulate_costs"),
    ], tags=["report"])
