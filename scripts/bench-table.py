#!/usr/bin/env python3
"""bench-table.py RESULTS DOC: turn bench.sh's results into markdown tables,
written into DOC between '<!-- bench:begin -->' and '<!-- bench:end -->'."""
import re, sys, collections
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    kv = dict(re.findall(r'(\w+)=(\S+)', line))
    if 'api' not in kv:
        continue
    key = (kv['arch'], kv['api'], kv['page'], kv['depth'], kv['ctx'])
    rows.setdefault(key, {})[(kv['variant'], kv['events'])] = float(kv['ns'])
cols = [(v, e) for v in ('plain', 'lockdep', 'kmap_local', 'kmap_stack', 'kmap_stack_traces')
        for e in ('off', 'on')]
cols = [c for c in cols if any(c in r for r in rows.values())]
out = []
for arch in sorted({k[0] for k in rows}):
    out.append(f'\n### {arch}: ns per map+unmap pair (median of 7 runs), ratio to plain\n')
    out.append('| api | page | depth | ctx | ' + ' | '.join(f'{v} ev={e}' for v, e in cols) + ' |')
    out.append('|' + '---|' * (4 + len(cols)))
    for k, r in rows.items():
        if k[0] != arch:
            continue
        base = r.get(('plain', 'off'))
        cells = []
        for c in cols:
            if c not in r:
                cells.append('')
            elif base and c != ('plain', 'off'):
                cells.append(f'{r[c]:.1f} ({r[c] / base:.2f}x)')
            else:
                cells.append(f'{r[c]:.1f}')
        out.append(f'| {k[1]} | {k[2]} | {k[3]} | {k[4]} | ' + ' | '.join(cells) + ' |')
doc = open(sys.argv[2]).read()
new = '<!-- bench:begin -->' + '\n'.join(out) + '\n<!-- bench:end -->'
doc = re.sub(r'<!-- bench:begin -->.*<!-- bench:end -->', lambda m: new, doc, flags=re.S)
open(sys.argv[2], 'w').write(doc)
print('\n'.join(out))
