package main

const layoutUsage = "decision files: flat (DIR/decisions.parquet) or hive (DIR/run_id=<id>/judge=<judge>/decisions.parquet, --out being the table root)"
