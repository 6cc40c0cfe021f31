# Independent writer attribution (flusher window by pid; remap chain by page).
import sys,re,math,collections
fs=sys.argv[1]
pat=re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$')
win={}; cls_page={}; rq={}; svc=collections.defaultdict(list); bios=collections.Counter(); pages=collections.Counter()
for line in sys.stdin:
    m=pat.match(line)
    if not m: continue
    comm,pid,cpu,ts,ev,args=m.groups(); ts=float(ts)
    if ev=='writeback_start': win[pid]=True
    elif ev=='writeback_written': win[pid]=False
    elif ev=='block_bio_queue':
        a=args.split()
        if a[0]!=fs or 'W' not in a[1]: continue
        s=int(a[2]); n=int(a[4]); c='flusher' if win.get(pid) else 'other'; bios[c]+=1; pages[c]+=(n+7)//8
        for i in range(0,(n+7)//8): cls_page[(fs,s+8*i)]=c
    elif ev=='block_bio_remap':
        mm=re.match(r'(\S+) (\S+) (\d+) \+ (\d+) <- \((\S+)\) (\d+)',args)
        if not mm or 'W' not in mm.group(2): continue
        c=cls_page.get((mm.group(5),int(mm.group(6))))
        if c:
            s=int(mm.group(3)); n=int(mm.group(4))
            for i in range(0,(n+7)//8): cls_page[(mm.group(1),s+8*i)]=c
    elif ev=='block_rq_issue':
        mm=re.match(r'(\S+) (\S+) \d+ \(.*?\) (\d+) \+ (\d+)',args)
        if not mm or 'W' not in mm.group(2): continue
        rq[(mm.group(1),int(mm.group(3)))]=(ts,cls_page.get((mm.group(1),int(mm.group(3)))))
    elif ev=='block_rq_complete':
        mm=re.match(r'(\S+) (\S+) \(.*?\) (\d+) \+ (\d+)',args)
        if not mm or 'W' not in mm.group(2) or int(mm.group(4))==0: continue
        k=(mm.group(1),int(mm.group(3)))
        if k in rq and rq[k][0] is not None:
            t0,c=rq[k]; rq[k]=(None,None); svc[c].append((ts-t0)*1e6)
for c in svc:
    v=sorted(svc[c]); print(c, 'n', len(v), 'p50', v[math.ceil(0.5*len(v))-1], 'p95', v[math.ceil(0.95*len(v))-1])
print(bios, pages)
