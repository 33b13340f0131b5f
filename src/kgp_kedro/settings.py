"""Project settings. There is no need to edit this file unless you want to change values
from the Kedro defaults. For further information, including these default values, see
https://docs.kedro.org/en/stable/configure/configuration_basics/#configuration"""

# Instantiated project hooks (executed in a Last-In-First-Out order).
from kgp_kedro.hooks import CredentialsToEnvironment, RawSourcesExist, ValidateParameters
from kgp_kedro.runs.integrity import RunIntegrity  # a failed or killed run leaves no version

HOOKS = (RunIntegrity(), ValidateParameters(), CredentialsToEnvironment(), RawSourcesExist())

# Installed plugins for which to disable hook auto-registration.
# DISABLE_HOOKS_FOR_PLUGINS = ("kedro-viz",)

# Class that manages the KedroSession.
# from kedro.framework.session import KedroSession
# SESSION_CLASS = KedroSession

# Class that manages storing KedroSession data.
# from kedro.framework.session.store import BaseSessionStore
# SESSION_STORE_CLASS = BaseSessionStore
# Keyword arguments to pass to the `SESSION_STORE_CLASS` constructor.
# SESSION_STORE_ARGS = {
#     "path": "./sessions"
# }

# Directory that holds configuration.
# CONF_SOURCE = "conf"

# Class that manages how configuration is loaded.
# parameters with every default of the typed parameters filled in (kgp_kedro.config)
from kgp_kedro.pipelines.parameters import ConfigLoader  # noqa: E402

CONFIG_LOADER_CLASS = ConfigLoader

# Keyword arguments to pass to the `CONFIG_LOADER_CLASS` constructor.
CONFIG_LOADER_ARGS = {
    "base_env": "base",
    "default_run_env": "local",
    # an env (conf/local, --env X) overrides single parameter keys of conf/base, not whole
    # blocks; a menu it names (kg.variants, retrieve.methods, embed.encoders) is a selection
    # (kgp_kedro.pipelines.parameters.ConfigLoader)
    "merge_strategy": {"parameters": "soft"},
    # "config_patterns": {
    #     "spark" : ["spark*/"],
    #     "parameters": ["parameters*", "parameters*/**", "**/parameters*"],
    # }
}

# Class that manages Kedro's library components.
# from kedro.framework.context import KedroContext
# CONTEXT_CLASS = KedroContext

# Class that manages the Data Catalog.
# from kedro.io import DataCatalog
# DATA_CATALOG_CLASS = DataCatalog
