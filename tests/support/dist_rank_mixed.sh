#!/bin/sh
# Under torchrun: rank 0 in Python (dist_rank.py), the other ranks in C++ (dls_dist_worker).
# Usage: dist_rank_mixed.sh PATH_TO_DLS_DIST_WORKER TIMEOUT_S
if [ "$RANK" = 0 ]; then
  exec /usr/bin/python3 "$(dirname "$0")/dist_rank.py"
fi
exec "$1" collectives "$2"
