#!/usr/bin/env python3
"""Check that every kernel's loops are straight vector code: no call inside a loop of a
kernel body, but to the functions that are out of line by design (the cold path for flagged
lanes and tails, the copy-out of streamed blocks, the per-call table set-up).

    python3 .ci/check_kernel_loops.py LIB.rlib [OBJDUMP]

It reads the object code of the built library (`objdump -dr`), so it judges the code that a
build with the profile at hand gets. A kernel body is a function of the crate's `kernels`
module whose name ends in `_body` (the `#[target_feature]` functions the entry points call).
Its loops are the cycles of each body's control-flow graph (its strongly connected
components). A call inside a loop, a branch from a loop to a panic (an index or check
that can fail inside the loop), or a vector register stored to a stack slot at a computed
index inside a loop (an array of vectors the compiler kept in memory and fills with a loop,
as a `[x; N]` repeat at opt-level "s") is printed with its body, and the check fails. A
summary line is printed either way.
"""
import re
import subprocess
import sys
from collections import Counter

# Out of line on purpose: run per flagged group of steps, per tail, per 4 KiB block of
# streamed output, or once per call (table set-up); never per step.
ALLOWED = [
    'kernels::x86_64_avx2::resolve_group_at',
    'kernels::x86_64_avx2::copy_written',
    'kernels::x86_64_avx2::stream_out',
    'kernels::x86_64_avx2::table_rows',
    'kernels::x86_64_avx512::table',
    'kernels::x86_64_avx512::zip_index',
    'kernels::lanes::cold',
    'kernels::lanes::cold_lanes',
    'kernels::scalar::cast',
]

JUMPS_WITHOUT_FALLTHROUGH = ('jmp', 'jmpq', 'ret', 'retq', 'ud2')


def is_panic(callee):
    """A call that does not return: a panic (a failed index, unwrap, overflow check...)."""
    return callee is not None and re.search(r'panic|_fail|unwrap_failed|expect_failed|abort', callee) is not None


def legacy_path(sym):
    """`_ZN<len><ident>...E` (or a `.text.` section named after it, or either with the
    `.llvm.<n>` suffix LLVM gives a local symbol it promotes across codegen units) as
    `a::b::c`, without the hash; other names unchanged."""
    m = re.search(r'_ZN(.*)E(?:\.llvm\.\d+)?$', sym)
    if not m:
        return re.sub(r'::h[0-9a-f]{16}$', '', sym)
    rest, parts = m.group(1), []
    while rest and rest[0].isdigit():
        n = re.match(r'\d+', rest).group(0)
        rest = rest[len(n):]
        parts.append(rest[:int(n)])
        rest = rest[int(n):]
    if parts and re.fullmatch(r'h[0-9a-f]{16}', parts[-1]):
        parts.pop()
    return '::'.join(parts)


def callee_name(target):
    name = re.sub(r'([-+]0x[0-9a-f]+)$', '', target.strip())
    return legacy_path(name)


def allowed(callee):
    # Generic instances carry their arguments in angle brackets: compare the path alone.
    path = re.sub(r'<.*', '', callee)
    return any(path == a or path.endswith('::' + a) or path.endswith(a) for a in ALLOWED)


def parse(text):
    funcs, cur = [], None
    for line in text.splitlines():
        m = re.match(r'^([0-9a-f]+) <(.*)>:$', line)
        if m:
            cur = {'name': legacy_path(m.group(2)), 'ins': []}
            funcs.append(cur)
            continue
        if cur is None:
            continue
        # A relocation names the target of the instruction above it.
        m = re.match(r'^\s+[0-9a-f]+: (R_\S+)\s+(.+)$', line)
        if m and cur['ins']:
            cur['ins'][-1][3] = callee_name(m.group(2))
            continue
        m = re.match(r'^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$', line)
        if m:
            cur['ins'].append([int(m.group(1), 16), m.group(2), m.group(3), None])
    return funcs


def resolve_register_calls(ins):
    """Name the callee of `call *%reg` where the register was loaded from the GOT entry of a
    symbol (code built for size keeps such addresses in registers across a loop)."""
    regs = {}
    for i in ins:
        addr, op, args, target = i
        m = re.match(r'mov\S*\s+\S+\(%rip\),%(\w+)', op + ' ' + args) if op.startswith('mov') else None
        if m and target:
            regs[m.group(1)] = target
            continue
        m = re.match(r'\*%(\w+)$', args.strip())
        if op.startswith('call') and m and target is None:
            i[3] = regs.get(m.group(1))


# `vmovdqu %ymm3,0x1e0(%rsp,%r9,1)`: a vector stored at a register-indexed stack address.
STACK_ARRAY_STORE = re.compile(r'^%[xyz]mm\d+,\S*\(%rsp,%\w+')


def loop_blocks(ins):
    """Indices of instructions that lie in some natural loop."""
    addrs = [i[0] for i in ins]
    index = {a: k for k, a in enumerate(addrs)}

    def target(args):
        m = re.match(r'([0-9a-f]+) <', args)
        return int(m.group(1), 16) if m else None

    leaders = {0}
    for k, (a, op, args, _) in enumerate(ins):
        if op.startswith('j') or op.startswith('ret') or op == 'ud2' or (op.startswith('call') and is_panic(ins[k][3])):
            t = target(args)
            if t is not None and t in index:
                leaders.add(index[t])
            if k + 1 < len(ins):
                leaders.add(k + 1)
    starts = sorted(leaders)
    block_of = {}
    blocks = []
    for b, s in enumerate(starts):
        e = starts[b + 1] if b + 1 < len(starts) else len(ins)
        blocks.append((s, e))
        for k in range(s, e):
            block_of[k] = b
    succ = [[] for _ in blocks]
    for b, (s, e) in enumerate(blocks):
        a, op, args, _ = ins[e - 1]
        t = target(args) if op.startswith('j') else None
        if t is not None and t in index:
            succ[b].append(block_of[index[t]])
        noreturn = op.startswith('call') and is_panic(ins[e - 1][3])
        if not (op in JUMPS_WITHOUT_FALLTHROUGH or op.startswith('ret') or noreturn) and e < len(ins):
            succ[b].append(block_of[e])
    # Blocks on a cycle: the strongly connected components with more than one block, or
    # with an edge to itself (Tarjan's algorithm, iterative).
    index_of, low, on_stack, stack, in_loop = {}, {}, set(), [], set()
    counter = 0
    for root in range(len(blocks)):
        if root in index_of:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index_of[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            if i < len(succ[node]):
                work.append((node, i + 1))
                nxt = succ[node][i]
                if nxt not in index_of:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index_of[nxt])
                continue
            if low[node] == index_of[node]:
                comp = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.append(x)
                    if x == node:
                        break
                if len(comp) > 1 or node in succ[node]:
                    in_loop.update(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    out = set()
    for b in in_loop:
        s, e = blocks[b]
        out.update(range(s, e))
    # A branch from a loop to a panic: an index (or other check) that can fail in the loop.
    panics = set()
    for b in in_loop:
        for t in succ[b]:
            s, e = blocks[t]
            if t not in in_loop and any(ins[k][1].startswith('call') and is_panic(ins[k][3]) for k in range(s, e)):
                panics.add(ins[blocks[b][1] - 1][0])
    return out, panics


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    lib = sys.argv[1]
    objdump = sys.argv[2] if len(sys.argv) > 2 else 'objdump'
    text = subprocess.run([objdump, '-dr', '--no-show-raw-insn', lib], check=True, capture_output=True,
                          text=True).stdout
    funcs = parse(text)
    bodies = [f for f in funcs if re.search(r'::kernels::.*_body$', f['name']) and f['ins']]
    # A body under a name this script does not read would go unchecked: fail on it instead.
    unread = sorted({f['name'] for f in funcs if f['ins'] and re.search(r'kernels.*_body', f['name'])} -
                    {f['name'] for f in bodies})
    for name in unread:
        print('kernel body under a name this check does not read: %s' % name)
    for f in bodies:
        resolve_register_calls(f['ins'])
    bad = Counter()
    for f in bodies:
        ins = f['ins']
        looped, panics = loop_blocks(ins)
        for k in looped:
            addr, op, args, callee = ins[k]
            if op.startswith('call') and not allowed(callee or args):
                bad[(f['name'], callee or args)] += 1
            elif op.startswith('vmov') and STACK_ARRAY_STORE.match(args):
                bad[(f['name'], 'a vector array in memory (%s at +0x%x)' % (op, addr))] += 1
        for addr in panics:
            bad[(f['name'], 'a panic (branch at +0x%x)' % addr)] += 1
    for (body, callee), n in sorted(bad.items()):
        print('in a kernel loop: %s -> %s (%d)' % (body, callee, n))
    print('kernel loops: %d kernel bodies, %d calls, panics or vector arrays in memory inside their loops' %
          (len(bodies), sum(bad.values())))
    if not bodies:
        print('no kernel bodies found in %s' % lib)
        return 1
    return 1 if bad or unread else 0


if __name__ == '__main__':
    sys.exit(main())
