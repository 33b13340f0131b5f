"""Project hooks."""
from __future__ import annotations

import logging
import os

from kedro.framework.hooks import hook_impl

logger = logging.getLogger(__name__)


class CredentialsToEnvironment:
    """Expose secrets of ``conf/local/credentials.yml`` to the libraries that read them from
    the environment (the TagMe linker reads ``TAGME_TOKEN``, the openai LLM backend
    ``OPENAI_API_KEY``). A variable already set wins::

        # conf/local/credentials.yml
        tagme:
          token: <your gcube token>
        llm:
          api_key: <your key>
    """

    VARIABLES = {("tagme", "token"): "TAGME_TOKEN", ("llm", "api_key"): "OPENAI_API_KEY"}

    @hook_impl
    def after_context_created(self, context) -> None:
        try:
            credentials = context.config_loader["credentials"]
        except Exception:  # noqa: BLE001 - no credentials file is the normal case
            return
        for (section, key), variable in self.VARIABLES.items():
            value = (credentials.get(section) or {}).get(key)
            if value and not os.environ.get(variable):
                os.environ[variable] = str(value)
                logger.info("Using %s.%s from the credentials as %s", section, key, variable)
