"""Per-node memory of failed attempts, kept with the record (issue 23).

After each failed attempt a digest (approach, Lean's error class, first error and goal, unknown
names, lemmas the attempt wished existed, cost) is stored under `.harness/memory/`; the next
prove or repair prompt on that node starts from a bounded, deterministic summary of it. A node's
memory is keyed by its statement: a restated node starts empty. An agent's `report_blocker`
(statement false, missing library material, needs decomposition) is kept here too: the node
"needs a person" until `harness resume-node` clears it.
"""
