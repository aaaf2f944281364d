"""The memory loop: lessons recorded, recalled into an agent's prompt, judged, and retired.

Its vocabularies (severity, scope, status, trigger, outcome) are `skillwiki.kinds`; `lessons` the
template, the one loader and record-lesson, `evidence` feedback, confidence, hits and review,
`recall` the scoring and the block, `block` writing the block into a file between markers,
`suggest` reading an agent run's feedback, `maintain` archiving, merging and promoting.
"""
