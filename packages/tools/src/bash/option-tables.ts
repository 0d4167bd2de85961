import { compileOptionTable, type OptionTable } from './option-table.js';

/**
 * The full option lists of the programs the analysis reads, taken from their
 * GNU (coreutils 9, grep 3, sed 4.9, gawk 5, findutils, diffutils) and
 * util-linux/procps/binutils `--help` and manual pages, in the syntax of
 * `compileOptionTable`: `n=,lines=` takes a value, `?` an optional joined one,
 * `!` marks an option that writes, runs code or otherwise is not
 * read-only, `<` one whose value is a file it reads and `@` one that reads
 * files named inside a file. Every option is thereby modelled: harmless,
 * reads a file, reads listed files, or not read-only. The lists are complete so that GNU's prefix expansion is judged
 * against every option the program has (`--s` is ambiguous for `sed`): an
 * option missing here is unknown, and an unknown option is never read-only.
 */
const HELP = 'help version';
const CHECKSUM = `b,binary @c,check tag t,text z,zero ignore-missing quiet status strict w,warn ${HELP}`;
const GAWK =
  'F=,field-separator= v=,assign= !f=,file= b,characters-as-bytes c,traditional C,copyright ' +
  '!d?,dump-variables? !D?,debug? !e=,source= !E=,exec= g,gen-pot h,help !i=,include= I,trace ' +
  'k,csv !l=,load= L?,lint? M,bignum N,use-lc-numeric n,non-decimal-data !o?,pretty-print? ' +
  'O,optimize !p?,profile? P,posix r,re-interval s,no-optimize S,sandbox t,lint-old V,version ' +
  '!W= !Y !Z=';

/** Options of programs whose every option is harmless, or whose harmful ones are marked. */
const SPECS: Record<string, string> = {
  cat: `A,show-all b,number-nonblank e E,show-ends n,number s,squeeze-blank t T,show-tabs u v,show-nonprinting ${HELP}`,
  head: `0 1 2 3 4 5 6 7 8 9 c=,bytes= n=,lines= q,quiet,silent v,verbose z,zero-terminated ${HELP}`,
  tail: `0 1 2 3 4 5 6 7 8 9 c=,bytes= f?,follow? F n=,lines= max-unchanged-stats= pid= q,quiet,silent retry s=,sleep-interval= v,verbose z,zero-terminated debug ${HELP}`,
  wc: `c,bytes m,chars l,lines @files0-from= L,max-line-length w,words total= ${HELP}`,
  grep:
    'E,extended-regexp F,fixed-strings G,basic-regexp P,perl-regexp e=,regexp= <f=,file= i,ignore-case ' +
    'no-ignore-case y w,word-regexp x,line-regexp z,null-data s,no-messages v,invert-match V,version help ' +
    'm=,max-count= b,byte-offset n,line-number line-buffered H,with-filename h,no-filename label= ' +
    'o,only-matching q,quiet,silent binary-files= a,text I d=,directories= D=,devices= r,recursive ' +
    'R,dereference-recursive include= exclude= <exclude-from= exclude-dir= L,files-without-match ' +
    'l,files-with-matches c,count T,initial-tab Z,null B=,before-context= A=,after-context= ' +
    'C=,context= group-separator= no-group-separator color?,colour? U,binary 0 1 2 3 4 5 6 7 8 9',
  ls:
    'a,all A,almost-all author b,escape block-size= B,ignore-backups c C color? d,directory D,dired f ' +
    'F,classify? file-type format= full-time g group-directories-first G,no-group h,human-readable si ' +
    'H,dereference-command-line dereference-command-line-symlink-to-dir hide= hyperlink? indicator-style= ' +
    'i,inode I=,ignore= k,kibibytes l L,dereference m n,numeric-uid-gid N,literal o p ' +
    'q,hide-control-chars show-control-chars Q,quote-name quoting-style= r,reverse R,recursive s,size S ' +
    `sort= time= time-style= t T=,tabsize= u U v w=,width= x X Z,context zero 1 ${HELP}`,
  stat: `L,dereference f,file-system cached= c=,format= printf= t,terse ${HELP}`,
  du:
    '0,null a,all apparent-size B=,block-size= b,bytes c,total D,dereference-args d=,max-depth= ' +
    '@files0-from= H h,human-readable inodes k L,dereference l,count-links m P,no-dereference ' +
    'S,separate-dirs si s,summarize t=,threshold= time? time-style= <X=,exclude-from= exclude= ' +
    `x,one-file-system ${HELP}`,
  df:
    'a,all B=,block-size= h,human-readable H,si i,inodes k l,local no-sync output? P,portability sync ' +
    `total t=,type= T,print-type x=,exclude-type= v ${HELP}`,
  basename: `a,multiple s=,suffix= z,zero ${HELP}`,
  dirname: `z,zero ${HELP}`,
  realpath: `e,canonicalize-existing m,canonicalize-missing L,logical P,physical q,quiet <relative-to= <relative-base= s,strip,no-symlinks z,zero ${HELP}`,
  readlink: `f,canonicalize e,canonicalize-existing m,canonicalize-missing n,no-newline q,quiet s,silent v,verbose z,zero ${HELP}`,
  diff:
    'normal q,brief s,report-identical-files c C=,context? u U=,unified? e,ed n,rcs y,side-by-side ' +
    'W=,width= left-column suppress-common-lines p,show-c-function F=,show-function-line= label= ' +
    't,expand-tabs T,initial-tab tabsize= suppress-blank-empty !l,paginate r,recursive no-dereference ' +
    'N,new-file unidirectional-new-file ignore-file-name-case no-ignore-file-name-case x=,exclude= ' +
    '<X=,exclude-from= S=,starting-file= <from-file= <to-file= i,ignore-case E,ignore-tab-expansion ' +
    'Z,ignore-trailing-space b,ignore-space-change w,ignore-all-space B,ignore-blank-lines ' +
    'I=,ignore-matching-lines= a,text strip-trailing-cr D=,ifdef= old-group-format= ' +
    'new-group-format= unchanged-group-format= changed-group-format= line-format= old-line-format= ' +
    'new-line-format= unchanged-line-format= d,minimal horizon-lines= speed-large-files color? palette= ' +
    'help v,version',
  cmp: 'b,print-bytes i=,ignore-initial= l,verbose n=,bytes= s,quiet,silent help v,version',
  comm: `1 2 3 check-order nocheck-order output-delimiter= total z,zero-terminated ${HELP}`,
  cut: `b=,bytes= c=,characters= d=,delimiter= f=,fields= n complement s,only-delimited output-delimiter= z,zero-terminated ${HELP}`,
  tr: `c,C,complement d,delete s,squeeze-repeats t,truncate-set1 ${HELP}`,
  nl:
    'b=,body-numbering= d=,section-delimiter= f=,footer-numbering= h=,header-numbering= ' +
    'i=,line-increment= l=,join-blank-lines= n=,number-format= p,no-renumber s=,number-separator= ' +
    `v=,starting-line-number= w=,number-width= ${HELP}`,
  od:
    'A=,address-radix= endian= j=,skip-bytes= N=,read-bytes= S=,strings? t=,format= v,output-duplicates ' +
    `w?,width? traditional a b c d f i l o s x ${HELP}`,
  fold: `b,bytes s,spaces w=,width= ${HELP}`,
  tac: `b,before r,regex s=,separator= ${HELP}`,
  seq: `f=,format= s=,separator= w,equal-width ${HELP}`,
  sleep: HELP,
  md5sum: CHECKSUM,
  sha1sum: CHECKSUM,
  sha224sum: CHECKSUM,
  sha256sum: CHECKSUM,
  sha384sum: CHECKSUM,
  sha512sum: CHECKSUM,
  b2sum: `l=,length= ${CHECKSUM}`,
  cksum: `a=,algorithm= l=,length= base64 raw untagged debug ${CHECKSUM}`,
  sum: `r s,sysv ${HELP}`,
  paste: `d=,delimiters= s,serial z,zero-terminated ${HELP}`,
  join: `a= e= i,ignore-case j= o= t= v= 1= 2= check-order nocheck-order header z,zero-terminated ${HELP}`,
  expand: `i,initial t=,tabs= ${HELP}`,
  unexpand: `a,all first-only t=,tabs= ${HELP}`,
  fmt: `c,crown-margin p=,prefix= s,split-only t,tagged-paragraph u,uniform-spacing w=,width= g=,goal= ${HELP}`,
  numfmt:
    'debug d=,delimiter= field= format= from= from-unit= grouping header? invalid= padding= round= ' +
    `suffix= to= to-unit= z,zero-terminated ${HELP}`,
  factor: `exponents h ${HELP}`,
  pwd: `L,logical P,physical ${HELP}`,
  whoami: HELP,
  id: `a Z,context g,group G,groups n,name r,real u,user z,zero ${HELP}`,
  uname: `a,all s,kernel-name n,nodename r,kernel-release v,kernel-version m,machine p,processor i,hardware-platform o,operating-system ${HELP}`,
  groups: HELP,
  nproc: `all ignore= ${HELP}`,
  arch: HELP,
  tty: `s,silent,quiet ${HELP}`,
  logname: HELP,
  users: HELP,
  who: `a,all b,boot d,dead H,heading ips l,login lookup m p,process q,count r,runlevel s,short t,time T,w,mesg,message,writable u,users ${HELP}`,
  date:
    'd=,date= debug <f=,file= I?,iso-8601? resolution R,rfc-email rfc-3339= <r=,reference= !s=,set= ' +
    `u,utc,universal ${HELP}`,
  base64: `d,decode i,ignore-garbage w=,wrap= ${HELP}`,
  strings:
    'a,all d,data f,print-file-name n=,bytes= t=,radix= o e=,encoding= U=,unicode= T=,target= ' +
    'w,include-all-whitespace s=,output-separator= h,help v,V,version',
  hexdump:
    'b,one-byte-octal X,one-byte-hex c,one-byte-char C,canonical d,two-bytes-decimal o,two-bytes-octal ' +
    'x,two-bytes-hex L,color? e=,format= <f=,format-file= n=,length= s=,skip= v,no-squeezing h,help V,version',
  column:
    't,table n=,table-name= O=,table-order= N=,table-columns= l=,table-columns-limit= ' +
    'E=,table-noextreme= d,table-noheadings e,table-header-repeat H=,table-hide= R=,table-right= ' +
    'T=,table-truncate= W=,table-wrap= L,keep-empty-lines J,json r=,tree= i=,tree-id= p=,tree-parent= ' +
    'c=,output-width= o=,output-separator= s=,separator= x,fillrows h,help V,version',
  look: 'a,alternative d,alphanum f,ignore-case t=,terminate= h,help V,version',
  rev: 'z,zero h,help V,version',
  which: 'a s',
  whereis: 'b B= m M= s S= f u l g h,help V,version',
  pgrep:
    'd=,delimiter= l,list-name a,list-full v,inverse w,lightweight c,count f,full g=,pgroup= G=,group= ' +
    'i,ignore-case n,newest o,oldest O=,older= P=,parent= s=,session= t=,terminal= u=,euid= U=,uid= ' +
    'x,exact <F=,pidfile= L,logpidfile r=,runstates= A,ignore-ancestors cgroup= ns= nslist= q,quiet ' +
    'h,help V,version',
  free:
    'b,bytes kilo mega giga tera peta k,kibi m,mebi g,gibi tebi pebi h,human si l,lohi L,line t,total ' +
    'v,committed s=,seconds= c=,count= w,wide help V,version',
  uptime: 'p,pretty h,help s,since V,version',
  file:
    'help v,version <m=,magic-file= !z,uncompress !Z,uncompress-noreport b,brief c,checking-printout ' +
    'e=,exclude= exclude-quiet= @f=,files-from= F=,separator= i,mime apple extension mime-type ' +
    'mime-encoding k,keep-going l,list L,dereference h,no-dereference n,no-buffer N,no-pad 0,print0 ' +
    '!p,preserve-date P=,parameter= r,raw s,special-files !S,no-sandbox !C,compile d,debug',
  hostname:
    'a,alias A,all-fqdns !b,boot d,domain f,fqdn,long !F=,file= i,ip-address I,all-ip-addresses ' +
    's,short y,yp,nis h,help V,version',
  locale: 'a,all-locales !m,charmaps c,category-name k,keyword-name v,verbose help usage V,version',
  getconf: 'a,all v= h,help V,version',
  sed:
    'n,quiet,silent debug e=,expression= !f=,file= follow-symlinks !i?,in-place? l=,line-length= posix ' +
    `E,r,regexp-extended s,separate sandbox u,unbuffered z,null-data ${HELP}`,
  gawk: GAWK,
  awk: GAWK,
  nawk: GAWK,
  mawk: 'F= v= !f= !W= version help usage',
  sort:
    'b,ignore-leading-blanks d,dictionary-order f,ignore-case g,general-numeric-sort i,ignore-nonprinting ' +
    'M,month-sort h,human-numeric-sort n,numeric-sort R,random-sort <random-source= r,reverse sort= ' +
    'V,version-sort batch-size= c,check? C !compress-program= debug @files0-from= k=,key= m,merge ' +
    '!o=,output= s,stable S=,buffer-size= t=,field-separator= !T=,temporary-directory= parallel= ' +
    `u,unique z,zero-terminated ${HELP}`,
  uniq: `c,count d,repeated D all-repeated? f=,skip-fields= group? i,ignore-case s=,skip-chars= u,unique z,zero-terminated w=,check-chars= ${HELP}`,
};

/**
 * Programs that change files, read for the paths they change (`cp
 * --target=DIR` is `--target-directory`): every option is listed and none is
 * marked, since what they write is judged by their targets.
 */
const WRITERS: Record<string, string> = {
  rm: `f,force i I interactive? one-file-system no-preserve-root preserve-root? r,R,recursive d,dir v,verbose ${HELP}`,
  rmdir: `ignore-fail-on-non-empty p,parents v,verbose ${HELP}`,
  unlink: HELP,
  mkdir: `m=,mode= p,parents v,verbose Z context? ${HELP}`,
  touch: `a c,no-create d=,date= f h,no-dereference m <r=,reference= t= time= ${HELP}`,
  cp:
    'a,archive attributes-only backup? b copy-contents d debug f,force i,interactive H l,link ' +
    'L,dereference n,no-clobber P,no-dereference p preserve? no-preserve= parents R,r,recursive ' +
    'reflink? remove-destination sparse= strip-trailing-slashes s,symbolic-link S=,suffix= ' +
    `t=,target-directory= T,no-target-directory u,update? v,verbose keep-directory-symlink x,one-file-system Z context? ${HELP}`,
  mv:
    'backup? b debug exchange f,force i,interactive n,no-clobber no-copy strip-trailing-slashes ' +
    `S=,suffix= t=,target-directory= T,no-target-directory u,update? v,verbose Z,context ${HELP}`,
  ln:
    'backup? b d,F,directory f,force i,interactive L,logical n,no-dereference P,physical r,relative ' +
    `s,symbolic S=,suffix= t=,target-directory= T,no-target-directory v,verbose ${HELP}`,
  chmod: `c,changes f,silent,quiet v,verbose no-preserve-root preserve-root <reference= R,recursive ${HELP}`,
  chown: `c,changes f,silent,quiet v,verbose dereference h,no-dereference from= no-preserve-root preserve-root <reference= R,recursive H L P ${HELP}`,
  chgrp: `c,changes f,silent,quiet v,verbose dereference h,no-dereference no-preserve-root preserve-root <reference= R,recursive H L P ${HELP}`,
  install:
    'backup? b C,compare d,directory D g=,group= m=,mode= o=,owner= p,preserve-timestamps s,strip ' +
    `strip-program= S=,suffix= t=,target-directory= T,no-target-directory v,verbose preserve-context Z context? debug ${HELP}`,
  tee: `a,append i,ignore-interrupts p output-error? ${HELP}`,
  truncate: `c,no-create o,io-blocks <r=,reference= s=,size= ${HELP}`,
  shred: `f,force n=,iterations= <random-source= s=,size= u remove? v,verbose x,exact z,zero ${HELP}`,
};

/** Programs that run a command given after their options: options end at the first operand. */
const WRAPPERS: Record<string, string> = {
  xargs:
    '0,null <a=,arg-file= d=,delimiter= E= e?,eof? I= i?,replace? L= l?,max-lines? n=,max-args= ' +
    'o,open-tty P=,max-procs= p,interactive !process-slot-var= r,no-run-if-empty s=,max-chars= ' +
    `show-limits t,verbose x,exit ${HELP}`,
  timeout: `preserve-status foreground k=,kill-after= s=,signal= v,verbose ${HELP}`,
  nice: `n=,adjustment= ${HELP}`,
  stdbuf: `i=,input= o=,output= e=,error= ${HELP}`,
  time: '!o=,output= !a,append f=,format= p,portability q,quiet v,verbose help V,version',
  env:
    'i,ignore-environment 0,null u=,unset= !C=,chdir= !S=,split-string= block-signal? default-signal? ' +
    `ignore-signal? list-signal-handling v,debug ${HELP}`,
  nohup: HELP,
  setsid: 'c,ctty f,fork w,wait h,help V,version',
  ionice: 'c=,class= n=,classdata= p=,pid= P=,pgid= t,ignore u=,uid= h,help V,version',
};

/** Exact-name programs (their own parsers take no abbreviations). */
const EXACT_SPECS: Record<string, string> = {
  jq:
    'c,compact-output n,null-input e,exit-status s,slurp r,raw-output j,join-output raw-output0 ' +
    'a,ascii-output S,sort-keys C,color-output M,monochrome-output tab indent= unbuffered stream ' +
    'stream-errors seq <f=,from-file= <L= arg== argjson== <slurpfile== <rawfile== args jsonargs ' +
    'R,raw-input h,help V,version build-configuration',
  rg:
    'e=,regexp= <f=,file= A=,after-context= B=,before-context= C=,context= c,count count-matches ' +
    'F,fixed-strings i,ignore-case S,smart-case s,case-sensitive v,invert-match w,word-regexp ' +
    'x,line-regexp l,files-with-matches files-without-match files n,line-number N,no-line-number ' +
    'H,with-filename I,no-filename heading no-heading o,only-matching q,quiet g=,glob= iglob= ' +
    't=,type= T=,type-not= type-list .,hidden u,unrestricted L,follow d=,max-depth= ' +
    'max-count=,m= M=,max-columns= max-filesize= no-ignore no-ignore-vcs no-messages p,pretty ' +
    'P,pcre2 U,multiline multiline-dotall color= colors= column no-column trim vimgrep json ' +
    'sort= sortr= stats 0,null null-data b,byte-offset r=,replace= passthru a,text ' +
    'j=,threads= h,help V,version !pre= !pre-glob= !z,search-zip !hostname-bin= engine= ' +
    'E=,encoding= no-config debug trace',
  tree:
    'a d l f x L= P= I= gitignore matchdirs ignore-case prune info noreport charset= filelimit= ' +
    'timefmt= q N Q p u g s h si du D r t c U v dirsfirst filesfirst sort= i A S n C J X ' +
    '@fromfile !o= !R !H= !T= help version',
};

/** Shell builtins, read by bash's own option reader (options end at the first operand; no abbreviations), and ps. */
const BUILTINS: Record<string, string> = {
  cd: 'L P e @',
  type: 'a f p t P',
  command: 'p v V',
  jobs: 'l n p r s !x',
  ps:
    'A a d e N C= G= g= p= q= s= t= U= u= c f F j l M O= o= P y Z H L m T w V h deselect ' +
    'pid= ppid= sid= tty= user= User= group= Group= quick-pid= sort= format= forest no-headers ' +
    'headers cols= columns= width= lines= rows= cumulative context signames help? version info',
};

const TABLES = new Map<string, OptionTable>([
  ...Object.entries(SPECS).map(([name, spec]): [string, OptionTable] => [
    name,
    compileOptionTable(spec),
  ]),
  ...Object.entries(WRITERS).map(([name, spec]): [string, OptionTable] => [
    name,
    compileOptionTable(spec),
  ]),
  ...Object.entries(WRAPPERS).map(([name, spec]): [string, OptionTable] => [
    name,
    compileOptionTable(spec, { stopAtOperand: true }),
  ]),
  ...Object.entries(BUILTINS).map(([name, spec]): [string, OptionTable] => [
    name,
    compileOptionTable(spec, { abbreviate: false, stopAtOperand: name !== 'ps' }),
  ]),
  ...Object.entries(EXACT_SPECS).map(([name, spec]): [string, OptionTable] => [
    name,
    compileOptionTable(spec, { abbreviate: false }),
  ]),
]);
TABLES.set('egrep', TABLES.get('grep') ?? compileOptionTable(''));
TABLES.set('fgrep', TABLES.get('grep') ?? compileOptionTable(''));

/** A program's full option table, or undefined when it has none here. */
export function optionTable(program: string): OptionTable | undefined {
  return TABLES.get(program);
}
