"""Outside-vocabulary root-cause incidents: four invented companies, written by an examiner who
never read the engine (`evals/rca/README.md`, "The outside-vocabulary sets")."""
