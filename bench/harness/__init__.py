"""The benchmark's orchestration: what is measured (``catalog``), the settings held equal for every
client (``settings``), the broker (``broker``), the rounds of runner processes (``orchestrate``),
the tables and charts (``report``) and the regression check (``check``)."""
