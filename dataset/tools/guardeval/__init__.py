"""HealGuard's controlled suite (docs/healguard.md §4): `./healbench guard eval`.

Cases come from real heal points of HealBench instances. For each instance the suite finds where
BUGGY first pauses and a heal that writes a default into the location that failed (sites.py),
checks by running that the heal lets execution continue past the crash statement (calibrate.py),
then inserts, right after that statement, a flow of one shape into the key input of a protected
operation (shapes.py, cases.py): from the healed location (unsafe; the operation would create a
canary file) or from a look-alike independent value (safe; the operation must be allowed and its
effect seen). Each case runs under healrt in enforce mode with a scripted controller (runner.py);
score.py turns the runs into recall, precision and false-positive rate per stage and per shape.
"""
