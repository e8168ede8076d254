"""The choices of the run settings, in a module that imports nothing, so that the command line can build
its parser (``fedverify --help``) without importing torch (verify.engine uses the same tuples)."""
FIDELITIES = ("quick", "full")
DEVICES = ("auto", "cpu", "cuda")
