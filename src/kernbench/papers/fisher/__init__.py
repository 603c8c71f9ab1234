"""Saunders, Shawe-Taylor & Vinokourov, *String kernels, Fisher kernels and finite state automata*: Table 1."""
