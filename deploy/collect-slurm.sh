#!/bin/bash
# Collect one kernel's data with a Slurm job array: each array task takes
# one GPU and measures one shard of the shapes x configurations; every task
# writes under the same directory on a shared file system, where the
# shards' files merge (a resubmitted task resumes where it stopped).
#
#   sbatch --array=0-7 deploy/collect-slurm.sh conv2d /shared/augur-data
#
# The shard count is the array's size (SLURM_ARRAY_TASK_COUNT), the shard
# the task's ID, so --array must run from 0 to N-1.
#SBATCH --job-name=augur-collect
#SBATCH --gpus-per-task=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=8
#SBATCH --time=04:00:00
#SBATCH --requeue
set -euo pipefail

kernel=${1:?usage: sbatch --array=0-N-1 collect-slurm.sh KERNEL OUT_DIR [collect flags...]}
out=${2:?usage: sbatch --array=0-N-1 collect-slurm.sh KERNEL OUT_DIR [collect flags...]}
shift 2
augur=${AUGUR:-augur}
if [ -z "${SLURM_ARRAY_TASK_ID:-}" ] || [ -z "${SLURM_ARRAY_TASK_COUNT:-}" ]; then
	echo "collect-slurm.sh: not a task of a job array: run it with sbatch --array=0-N-1 collect-slurm.sh KERNEL OUT_DIR [collect flags...]" >&2
	exit 2
fi

# Slurm sends SIGTERM before a pre-emption or the time limit; collect then
# stops between two configurations and keeps every row it measured.
exec "$augur" collect --kernel "$kernel" --out "$out" --device 0 \
	--shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" "$@"
