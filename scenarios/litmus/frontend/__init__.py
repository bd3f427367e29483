# SPDX-License-Identifier: MIT
"""The C-litmus front end: lexer -> parser -> ir (checked) -> cgen (per primitive set)."""
