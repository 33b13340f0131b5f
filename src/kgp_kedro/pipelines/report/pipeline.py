"""report: ``qa_summary`` -> Table 1, Table 2, reader costs and the F1 figure; with
``report.results.benchmark`` set, every scored answer also goes into the committed results
store, with the retrieved passages its prompts were built from (and what EWEK-QA's composer
and HOLMES' reader read, when their methods ran)."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.report.nodes import (record_composed_input, record_read_facts_input,
                                              record_results, record_retrieved, tabulate_costs,
                                              tabulate_qa)
from kgp_kedro.reporting.results import ANSWER_BLOCKS


def create_pipeline(params) -> Pipeline:
    fact_readers = [m for m, spec in params.holmes.methods.items() if spec.method().reads_facts]
    recorded = ([node(record_results, ["qa_scores", "params:report",
                                       *(f"params:{block}" for block in ANSWER_BLOCKS)],
                      None, name="record_results"),
                 node(record_retrieved, ["qa_scores", "params:report",
                                         *[f"retrieved_{m}" for m in params.methods]],
                      None, name="record_retrieved"),
                 *([node(record_composed_input, ["qa_scores", "params:report", "ewek_composed"],
                         None, name="record_composed")] if params.ewek.methods else []),
                 *([node(record_read_facts_input,
                         ["qa_scores", "params:report", *(f"holmes_read_{m}" for m in fact_readers)],
                         None, name="record_read_facts")] if fact_readers else [])]
                if params.report.results.benchmark else [])
    return Pipeline([
        *recorded,
        node(tabulate_qa, ["qa_summary", "params:report", "qa_scores"],
             ["qa_table1", "qa_table2", "qa_figure_html", "qa_figure_json"], name="tabulate_qa"),
        node(tabulate_costs, ["qa_summary", "qa_questions", "params:retrieve.methods",
                              *[f"retrieved_{m}" for m in params.methods]],
             "reader_costs", name="tabulate_costs"),
    ], tags=["report"])
