"""embed: passage embeddings, one namespace per encoder of ``embed.encoders``."""
