"""A rank forked by ``advisor.launch.agent``: the worker, run by torchrun's ``--run-path``.

torchrun runs this file with ``runpy.run_path`` inside the forked rank and then hands the
function's return to the agent; a rank that raised SystemExit(0) (the worker module's own
``__main__`` ending) would leave the agent waiting for that return, so only a failure exits here.
"""

import sys

from advisor import worker

code = worker.main(sys.argv[1:])
if code:
    raise SystemExit(code)
