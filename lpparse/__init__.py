"""lpparse: LP and ILP relaxations of structured inference in NLP, dependency parsing first."""

__version__ = "0.1.0"
