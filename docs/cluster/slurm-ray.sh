#!/usr/bin/env bash
# A Ray cluster inside one Slurm allocation, then `harness run` on it (docs/cluster.md).
#   sbatch docs/cluster/slurm-ray.sh Blueprint/SLT/Main.lean
# Head on the first node, one worker per other node (srun), the run on the head.
#SBATCH --job-name=harness-ray
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=16
#SBATCH --mem=0
#SBATCH --time=24:00:00
set -euo pipefail

FILE=${1:?usage: sbatch slurm-ray.sh BLUEPRINT.lean [harness run flags…]}
shift
: "${OPENAI_API_KEY:?export OPENAI_API_KEY (or your endpoint.api_key_env) before sbatch}"
# the key reaches every node through the environment srun propagates (never a task argument)
PORT=${RAY_PORT:-6379}
CPUS=${SLURM_CPUS_PER_TASK:-16}
WORKERS=${WORKERS:-$(( SLURM_JOB_NUM_NODES * CPUS ))}
export RAY_USAGE_STATS_ENABLED=0

nodes=($(scontrol show hostnames "$SLURM_JOB_NODELIST"))
head=${nodes[0]}
head_ip=$(srun --nodes=1 --ntasks=1 -w "$head" hostname --ip-address | awk '{print $1}')
address="$head_ip:$PORT"
# node-local temp dirs: Ray's unix sockets need short paths
tmp="/tmp/ray-$SLURM_JOB_ID"

# The head: `--block` keeps it in the foreground of its srun step; the step ends with the job.
srun --nodes=1 --ntasks=1 -w "$head" \
  ray start --head --node-ip-address="$head_ip" --port="$PORT" --num-cpus="$CPUS" \
  --include-dashboard=false --temp-dir="$tmp" --block &
sleep 20

# One worker per remaining node.
for node in "${nodes[@]:1}"; do
  srun --nodes=1 --ntasks=1 -w "$node" \
    ray start --address="$address" --num-cpus="$CPUS" --block &
done
sleep 20

# The orchestrator, scheduler, gate and git record stay here, on the head node.
srun --overlap --nodes=1 --ntasks=1 -w "$head" \
  python -m harness run "$FILE" --executor ray --ray-address "$address" \
  --workers "$WORKERS" --plain "$@"
status=$?

# Stop the cluster: the srun steps above end with the allocation; be explicit anyway.
for node in "${nodes[@]}"; do
  srun --overlap --nodes=1 --ntasks=1 -w "$node" ray stop --force >/dev/null 2>&1 || true
done
wait || true
exit $status
