"""The rule engine: YAML rules over measured facts → findings, recommended environment and settings.

- ``schema``: rule files, validated (file, rule id and field named) before any rule runs;
- ``sandbox``: where conditions, computed values and message templates run;
- ``engine``: the evaluation context, findings, rules not evaluated, conflicts resolved by priority;
- ``findings``: the data shape of findings.json;
- ``outputs``: findings.json, recommended.env, launch.sh, settings.yaml;
- ``apply``: the configured rules over a run's facts, and their files written;
- ``cli``: ``advisor rules list | validate | explain``.
"""
