"""Tables, intervals, paired comparisons, the results summary, MLflow tracking and the report pages."""
