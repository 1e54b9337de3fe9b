import sys, json, os, collections
# usage: python3 add.py CLASS URL PROJECT "WHY" [EXIT] < logtext
base='/work/main/corpus/public4'
cls,url,project,why=sys.argv[1:5]
ex=sys.argv[5] if len(sys.argv)>5 else None
excl=set(open(base+'/.excluded_urls').read().split('\n'))
if url.rstrip('/') in excl: sys.exit('EXCLUDED URL')
lab=base+'/labels.jsonl'
rows=[json.loads(l) for l in open(lab)] if os.path.exists(lab) else []
if sum(r['url']==url for r in rows)>=2: sys.exit('THREAD FULL')
n=1+sum(r['mode']==cls for r in rows)
i=f'{cls}-p4-{n:02d}'
text=sys.stdin.read()
if not text.endswith('\n'): text+='\n'
for r in rows:
    if open(base+'/'+r['log_path']).read()==text: sys.exit('DUP TEXT')
open(f'{base}/logs/{i}.log','w').write(text)
d={"id":i,"mode":cls,"source":"public","log_path":f"logs/{i}.log","url":url,"project":project,"why":why}
if ex is not None: d['true_exit_code']=int(ex)
open(lab,'a').write(json.dumps(d)+'\n')
print(i)
