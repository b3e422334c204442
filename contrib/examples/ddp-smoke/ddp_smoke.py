#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ddp-smoke: does a training job start and train on this allocation?

A small PyTorch DDP job that uses the environment the supernode plugin sets
in every task of a --supernode job step, exactly as set: MASTER_ADDR,
MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK (no torchrun, no other setup).
It trains a small transformer language model on synthetic sequences for
--steps steps and passes when all of these hold:

  - the loss falls: the mean of the last 20 steps is below 0.5 x the mean
    of the first 20 (losses averaged over the ranks);
  - no loss is NaN or infinite, on any rank;
  - throughput does not drop: tokens/s of the last quarter of the steps is
    at least 0.8 x that of the second quarter (the first is warm-up).

It prints tokens/s (all ranks together) and the all-reduce time per step:
the gradients are all-reduced in a DDP communication hook that waits for
its all-reduce, so that time can be measured (no overlap with the
backward pass: this is a smoke test, not a benchmark).

Exit: 0 pass, 1 fail (said why), 2 a variable is missing or wrong.

  srun python3 ddp_smoke.py [--steps 300] [--backend nccl|gloo]
"""
import argparse
import math
import os
import sys
import time

REQUIRED = ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK")
PREFIX = "ddp-smoke: "


def env_or_exit(environ=os.environ):
    """The five variables, checked before torch is imported; exit 2 if not."""
    missing = [v for v in REQUIRED if not environ.get(v)]
    if missing:
        print(PREFIX + "missing " + ", ".join(missing) + ": the supernode "
              "plugin sets MASTER_ADDR and MASTER_PORT in every step and "
              "RANK, WORLD_SIZE and LOCAL_RANK in every task of a "
              "--supernode job (env.pytorch); run it as 'srun python3 "
              "ddp_smoke.py' inside 'sbatch --supernode=1' "
              "(ddp-smoke.sbatch), not in the batch script itself",
              file=sys.stderr)
        sys.exit(2)
    env = {}
    for v in REQUIRED[1:]:
        try:
            env[v] = int(environ[v])
        except ValueError:
            print(PREFIX + "%s=%r is not a number" % (v, environ[v]),
                  file=sys.stderr)
            sys.exit(2)
    if not (0 <= env["RANK"] < env["WORLD_SIZE"]) or env["LOCAL_RANK"] < 0 \
            or not (0 < env["MASTER_PORT"] < 65536):
        print(PREFIX + "RANK=%d, WORLD_SIZE=%d, LOCAL_RANK=%d, "
              "MASTER_PORT=%d do not fit together" %
              (env["RANK"], env["WORLD_SIZE"], env["LOCAL_RANK"],
               env["MASTER_PORT"]), file=sys.stderr)
        sys.exit(2)
    env["MASTER_ADDR"] = environ["MASTER_ADDR"]
    return env


def parse_args():
    p = argparse.ArgumentParser(description="DDP smoke test")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--batch", type=int, default=16, help="per rank")
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--backend", choices=("nccl", "gloo"),
                   help="default: nccl when each rank has a GPU of its own")
    a = p.parse_args()
    if a.steps < 80:
        p.error("--steps must be at least 80 (4 quarters of 20)")
    return a


def pick_device(torch, env, wanted):
    """The task's GPU (the plugin binds one per task) and the backend."""
    if not torch.cuda.is_available():
        return torch.device("cpu"), wanted or "gloo"
    n = torch.cuda.device_count()
    dev = torch.device("cuda", env["LOCAL_RANK"] % n)
    local_size = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    # a GPU of its own: one per local rank, or the one the task was bound
    # to (CUDA_VISIBLE_DEVICES per task); else ranks share one: gloo
    bound = n == 1 and os.environ.get("CUDA_VISIBLE_DEVICES", "") != ""
    own_gpu = local_size <= n or bound
    return dev, wanted or ("nccl" if own_gpu else "gloo")


def build_model(torch, vocab, dim, seq):
    nn = torch.nn
    layer = nn.TransformerEncoderLayer(dim, 4, 4 * dim, dropout=0.0,
                                       batch_first=True)

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, dim)
            self.pos = nn.Embedding(seq, dim)
            self.body = nn.TransformerEncoder(layer, 2)
            self.head = nn.Linear(dim, vocab)

        def forward(self, x):
            t = x.shape[1]
            mask = torch.triu(torch.full((t, t), float("-inf"),
                                         device=x.device), 1)
            h = self.emb(x) + self.pos(torch.arange(t, device=x.device))
            return self.head(self.body(h, mask=mask))

    return LM()


def batch(torch, gen, perm, a, device):
    """Sequences x[t+1] = perm[x[t]] from random starts: a bigram language."""
    seq = [torch.randint(0, len(perm), (a.batch,), generator=gen)]
    for _ in range(a.seq):
        seq.append(perm[seq[-1]])
    seq = torch.stack(seq, 1)
    return seq[:, :-1].to(device), seq[:, 1:].to(device)


def timed_hook(torch, dist, device, spent):
    """A DDP comm hook (a plain function: DDP reads its __name__) that
    all-reduces, waits, and adds the seconds it took to spent[0]."""

    def allreduce_timed(state, bucket):
        buf = bucket.buffer()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        dist.all_reduce(buf)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        spent[0] += time.perf_counter() - t0
        buf.div_(dist.get_world_size())
        fut = torch.futures.Future()
        fut.set_result(buf)
        return fut

    return allreduce_timed


def judge(losses, tps, steps):
    """The verdict from the rank-averaged losses and rank 0's tokens/s."""
    why = []
    if not all(math.isfinite(x) for x in losses):
        why.append("a loss is NaN or infinite")
    first, last = sum(losses[:20]) / 20, sum(losses[-20:]) / 20
    if not last < 0.5 * first:
        why.append("the loss did not fall: %.4f -> %.4f (want < 0.5x)" %
                   (first, last))
    q = steps // 4
    q2, q4 = sum(tps[q:2 * q]) / q, sum(tps[3 * q:4 * q]) / q
    if not q4 >= 0.8 * q2:
        why.append("throughput dropped: %.0f -> %.0f tokens/s (want >= "
                   "0.8x)" % (q2, q4))
    return why, first, last, q2, q4


def train(a, env):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    device, backend = pick_device(torch, env, a.backend)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group(backend, init_method="env://",
                            rank=env["RANK"], world_size=env["WORLD_SIZE"])
    torch.manual_seed(0)
    vocab, rank = 256, env["RANK"]
    perm = torch.randperm(vocab, generator=torch.Generator().manual_seed(7))
    model = DDP(build_model(torch, vocab, 256, a.seq).to(device),
                device_ids=[device.index] if device.type == "cuda" else None)
    spent = [0.0]
    model.register_comm_hook(None, timed_hook(torch, dist, device, spent))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(1000 + rank)
    losses, tps, ar_ms = [], [], []
    tokens = a.batch * a.seq * env["WORLD_SIZE"]
    if rank == 0:
        print(PREFIX + "world %d, backend %s, device %s, master %s:%d, "
              "%d steps of %d tokens" % (env["WORLD_SIZE"], backend, device,
                                         env["MASTER_ADDR"],
                                         env["MASTER_PORT"], a.steps, tokens),
              flush=True)
    for step in range(a.steps):
        x, y = batch(torch, gen, perm, a, device)
        t0, before = time.perf_counter(), spent[0]
        loss = torch.nn.functional.cross_entropy(
            model(x).reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        lv = loss.detach().clone()
        dist.all_reduce(lv)
        losses.append(lv.item() / env["WORLD_SIZE"])
        dt = time.perf_counter() - t0
        tps.append(tokens / dt)
        ar_ms.append((spent[0] - before) * 1e3)
        if rank == 0 and (step % 50 == 0 or step == a.steps - 1):
            print(PREFIX + "step %4d loss %.4f tokens/s %.0f all-reduce "
                  "%.3f ms/step" % (step, losses[-1], tps[-1], ar_ms[-1]),
                  flush=True)
        if not math.isfinite(losses[-1]):
            break
    why, first, last, q2, q4 = judge(losses, tps, a.steps)
    verdict = torch.tensor([0 if not why else 1], device=device)
    dist.broadcast(verdict, 0)
    if rank == 0:
        print(PREFIX + "loss %.4f -> %.4f; tokens/s q2 %.0f, q4 %.0f "
              "(%.2fx); all-reduce %.3f ms/step (mean, steps 20 on)" %
              (first, last, q2, q4, q4 / q2,
               sum(ar_ms[20:]) / max(1, len(ar_ms) - 20)))
        print(PREFIX + ("PASS" if not why else "FAIL: " + "; ".join(why)),
              flush=True)
    dist.destroy_process_group()
    return int(verdict.item())


def main():
    env = env_or_exit()
    a = parse_args()
    try:
        import torch  # noqa: F401
    except ImportError:
        print(PREFIX + "PyTorch is not installed for %s" % sys.executable,
              file=sys.stderr)
        return 2
    return train(a, env)


if __name__ == "__main__":
    sys.exit(main())
