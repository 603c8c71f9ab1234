"""The re-run papers, one package each: experiment, commands, figures and run planning."""
