"""advisor: diagnostics and tuning advisor for distributed training communication."""

__version__ = "0.1.0"
