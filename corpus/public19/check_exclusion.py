import json,glob,os,sys,csv
projs=set()
def add(p):
    if p: projs.add(p.strip().lower())
def fromurl(u):
    if u and 'github.com/' in u:
        parts=u.split('github.com/')[1].split('/')
        if len(parts)>=2: add(parts[0]+'/'+parts[1])
files=['/work/main/corpus/labels.jsonl']+sorted(glob.glob('/work/main/corpus/public*/labels.jsonl'))
files=[f for f in files if not f.startswith('/work/main/corpus/public19/')]
for f in files:
    for line in open(f):
        line=line.strip()
        if not line: continue
        try: d=json.loads(line)
        except Exception: continue
        add(d.get('project')); fromurl(d.get('url'))
t='/work/shared/real-logs/labels.tsv'
if os.path.exists(t):
    r=csv.reader(open(t),delimiter='\t'); h=next(r)
    if 'repo' in h:
        i=h.index('repo')
        for row in r:
            if len(row)>i: add(row[i]); fromurl(row[i])
a='/work/shared/anchor-corpus/corpus/labels.jsonl'
if os.path.exists(a):
    for line in open(a):
        try: d=json.loads(line)
        except Exception: continue
        for k in ('url','project','repo'):
            v=d.get(k)
            if isinstance(v,str): add(v); fromurl(v)
projs.discard('')
args=[x.lower() for x in sys.argv[1:]]
if args:
    for x in args: print(x, 'EXCLUDED' if x in projs else 'ok')
else:
    print(len(projs),'excluded entries from',len(files),'label files')
