"""report: the paper-style QA comparison (Table 1, Table 2), the reader's costs, figures."""
