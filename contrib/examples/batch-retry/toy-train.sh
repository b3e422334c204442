#!/bin/bash
# The toy trainer batch-retry.sbatch runs by default: STEPS steps (default
# 5) of STEP_SECONDS (default 0.2) each, a checkpoint after each
# (CKPT_DIR/step-N.ckpt), starting after RESUME_STEP.  For a test of the
# retry path, FAIL_AT_STEP=N makes the first attempt requeue its own job
# (scontrol requeue, as a node fault would) once step N's checkpoint is
# written.
set -euo pipefail
: "${CKPT_DIR:?}" "${RESUME_STEP:?}"
steps=${STEPS:-5}
echo "toy-train: attempt ${SUPERNODE_ATTEMPT:-?}: first step $((RESUME_STEP + 1)) of $steps"
for ((s = RESUME_STEP + 1; s <= steps; s++)); do
	sleep "${STEP_SECONDS:-0.2}"
	echo "step $s" >"$CKPT_DIR/step-$s.ckpt.tmp"
	mv "$CKPT_DIR/step-$s.ckpt.tmp" "$CKPT_DIR/step-$s.ckpt"
	echo "toy-train: step $s done"
	if [[ ${FAIL_AT_STEP:-} == "$s" && ${SUPERNODE_ATTEMPT:-} == 1 ]]; then
		echo "toy-train: forced failure after step $s: requeue"
		scontrol requeue "$SLURM_JOB_ID"
		sleep 60
	fi
done
