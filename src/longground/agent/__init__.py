"""CoMET-Agent, one folder per step of the paper: `plan/` (Step 1), `graph/` and `perception/`
(Step 2), `verify/` (Step 3), `aggregate.py` (Step 4); `roles/` holds the four roles' backends
and `pipeline.py` runs the steps in order."""
