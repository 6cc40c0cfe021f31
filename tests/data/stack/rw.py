#!/usr/bin/env python3
# Usage: rw.py TRACE[.gz] [THREAD_SIZE] [leaf]
import gzip,re,sys,collections
# Independent reading of a stack_probe_trace: storage-site samples, their chains,
# whether the chain holds pageout/swap_writepage/shmem_writepage.
T=int(sys.argv[2]) if len(sys.argv)>2 else 16384
STOR={'submit_bio_noacct','raid1_make_request','raid5_make_request','scsi_queue_rq','iscsi_queuecommand','virtio_queue_rq','virtio_queue_rqs'}
if len(sys.argv)>3 and sys.argv[3]=='leaf':
    STOR={'__alloc_pages','__alloc_pages_noprof','kmem_cache_alloc','kmem_cache_alloc_noprof','__kmalloc','__kmalloc_noprof','virtqueue_add_split','virtqueue_notify'}
W={'pageout','swap_writepage','shmem_writepage'}
lines=(gzip.open if sys.argv[1].endswith('.gz') else open)(sys.argv[1],'rt').read().split('\n')
ev=re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (<stack trace>|[^:\s]+)(?::\s?(.*))?$')
samples=[];cur=None;pending={}
for l in lines:
    if l.startswith(' => '):
        if cur is not None: cur['chain'].append(l[4:].split('+')[0])
        continue
    m=ev.match(l)
    if not m: continue
    comm,pid,cpu,ts,name,rest=m.groups(); rest=rest or ''
    if name=='<stack trace>':
        cur=None
        for s in reversed(samples[-8:]):
            if s['pid']==int(pid) and s['cpu']==int(cpu) and not s['got']:
                s['got']=True;cur=s;break
        continue
    cur=None
    if name in STOR or True:
        mm=re.search(r' sp=(\S+)',rest)
        if mm and not name.startswith('mm_vmscan'):
            sp=int(mm.group(1),0)
            samples.append(dict(site=name,pid=int(pid),cpu=int(cpu),comm=comm,ts=float(ts),depth=T-(sp&(T-1)),chain=[],got=False))
st=[s for s in samples if s['site'] in STOR]
wr=[s for s in st if W & set(s['chain'])]
print('samples',len(samples),'storage',len(st),'with writepage chain',len(wr),'nochain',sum(1 for s in st if not s['got']))
if wr:
    b=max(wr,key=lambda s:s['depth']); print('deepest',b['depth'],b['site'],b['comm'],b['pid'],b['ts']); print(b['chain'][:40])
b=max(samples,key=lambda s:s['depth']); print('deepest any',b['depth'],b['site'],b['comm'])
c=collections.Counter((s['site'],s['comm']) for s in st if not (W&set(s['chain']))); print(c.most_common(10))
