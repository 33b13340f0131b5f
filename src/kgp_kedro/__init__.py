"""kgp-kedro
"""

__version__ = "0.1"
