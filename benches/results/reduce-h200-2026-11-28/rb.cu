// Reduce bandwidth experiments on 2^28 f32: block->tile mappings and load flavours.
#include <cub/cub.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do{cudaError_t e=(x); if(e){printf("%s:%d %s\n",__FILE__,__LINE__,cudaGetErrorString(e)); exit(1);}}while(0)
const int L=256; const int TILE=4096; const int CH=4;
template<int MODE> __device__ __forceinline__ float4 ld(const float4* p){
  if constexpr (MODE==0) return *p;
  else if constexpr (MODE==1) return __ldg(p);
  else if constexpr (MODE==2) return __ldcs(p);
  else { float4 r; asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];":"=f"(r.x),"=f"(r.y),"=f"(r.z),"=f"(r.w):"l"(p)); return r; }
}
template<int MODE> __device__ __forceinline__ void load(const float* in, long tile, float4* b){
  const float4* p = reinterpret_cast<const float4*>(in + tile*TILE);
#pragma unroll
  for(int c=0;c<CH;++c) b[c]=ld<MODE>(p + c*L + threadIdx.x);
}
__device__ __forceinline__ float fold(const float4* b){ float a=0;
#pragma unroll
  for(int c=0;c<CH;++c){a+=b[c].x;a+=b[c].y;a+=b[c].z;a+=b[c].w;} return a;}
__device__ __forceinline__ float blk(float v){ __shared__ float s[8];
  for(int o=16;o;o>>=1) v+=__shfl_xor_sync(0xffffffffu,v,o);
  if((threadIdx.x&31)==0) s[threadIdx.x>>5]=v; __syncthreads();
  float r=0; if(threadIdx.x==0){for(int i=0;i<8;++i) r+=s[i];} __syncthreads(); return r;}
// K contiguous tiles a block, prefetch next
template<int K,int MODE> __global__ void __launch_bounds__(256, K==1?8:5) kcontig(const float* in, long tiles, float* part){
  long first=(long)blockIdx.x*K; float4 b[CH]; load<MODE>(in,first,b);
  for(int k=0;k<K;++k){ long t=first+k; if(t>=tiles)break; float4 nx[CH]; bool pf=k+1<K&&t+1<tiles; if(pf)load<MODE>(in,t+1,nx);
    float r=blk(fold(b)); if(threadIdx.x==0) part[t]=r; if(pf){for(int c=0;c<CH;++c)b[c]=nx[c];}}
}
// persistent grid-stride, D tiles of loads ahead
template<int D,int MODE> __global__ void __launch_bounds__(256, D==1?5:3) gstride(const float* in, long tiles, float* part){
  long G=gridDim.x; float4 b[D][CH];
#pragma unroll
  for(int d=0;d<D;++d){ long t=blockIdx.x+d*G; if(t<tiles) load<MODE>(in,t,b[d]); }
  for(long t=blockIdx.x;t<tiles;t+=G){
    float a=fold(b[0]);
#pragma unroll
    for(int d=0;d+1<D;++d) for(int c=0;c<CH;++c) b[d][c]=b[d+1][c];
    long nt=t+D*G; if(nt<tiles) load<MODE>(in,nt,b[D-1]);
    float r=blk(a); if(threadIdx.x==0) part[t]=r;
  }
}
// persistent even share (contiguous ranges), D ahead
template<int D,int MODE> __global__ void __launch_bounds__(256, D==1?5:3) evensh(const float* in, long tiles, float* part){
  long per=(tiles+gridDim.x-1)/gridDim.x; long s=blockIdx.x*per, e=min(tiles,s+per); float4 b[D][CH];
#pragma unroll
  for(int d=0;d<D;++d){ long t=s+d; if(t<e) load<MODE>(in,t,b[d]); }
  for(long t=s;t<e;++t){
    float a=fold(b[0]);
#pragma unroll
    for(int d=0;d+1<D;++d) for(int c=0;c<CH;++c) b[d][c]=b[d+1][c];
    long nt=t+D; if(nt<e) load<MODE>(in,nt,b[D-1]);
    float r=blk(a); if(threadIdx.x==0) part[t]=r;
  }
}
// persistent grid-stride, no block reduce per tile: accumulate per thread, one partial per block (upper bound)
template<int MODE> __global__ void __launch_bounds__(256,5) gsacc(const float* in, long tiles, float* part){
  long G=gridDim.x; float4 b[CH]; float a=0; if(blockIdx.x<tiles) load<MODE>(in,blockIdx.x,b);
  for(long t=blockIdx.x;t<tiles;t+=G){ float4 nx[CH]; bool pf=t+G<tiles; if(pf) load<MODE>(in,t+G,nx); a+=fold(b); if(pf) for(int c=0;c<CH;++c)b[c]=nx[c]; }
  float r=blk(a); if(threadIdx.x==0) part[blockIdx.x]=r;
}

// K contiguous tiles + the real kernel's ticket per block (FENCE 0: none, 1: __threadfence + atomicAdd, 2: atom.add.release.gpu)
template<int K,int FENCE> __global__ void __launch_bounds__(256, K==1?8:5) kticket(const float* in, long tiles, float* part, unsigned* tick){
  __shared__ bool last;
  long first=(long)blockIdx.x*K; float4 b[CH]; load<0>(in,first,b);
  for(int k=0;k<K;++k){ long t=first+k; if(t>=tiles)break; float4 nx[CH]; bool pf=k+1<K&&t+1<tiles; if(pf)load<0>(in,t+1,nx);
    float r=blk(fold(b)); if(threadIdx.x==0) part[t]=r; if(pf){for(int c=0;c<CH;++c)b[c]=nx[c];}}
  long g=first/4096; long items=min(4096L,tiles-g*4096); unsigned expect=(unsigned)((items+K-1)/K);
  if(threadIdx.x==0){ unsigned old;
    if constexpr (FENCE==1){ __threadfence(); old=atomicAdd(tick+g,1u);} 
    else if constexpr (FENCE==2){ asm volatile("atom.add.release.gpu.u32 %0,[%1],1;":"=r"(old):"l"(tick+g):"memory"); }
    else old=atomicAdd(tick+g,1u);
    last= old==expect-1; if(last) atomicExch(tick+g,0u);}
  __syncthreads(); if(!last) return;
  __threadfence();
  if(threadIdx.x==0) part[tiles+g]=1.0f; // stand-in for the group's reduce
}
float med(std::vector<float> v){std::sort(v.begin(),v.end());return v[v.size()/2];}
template<class F> float timeit(F f,int reps=30){cudaEvent_t a,b;cudaEventCreate(&a);cudaEventCreate(&b);std::vector<float> t;
  for(int i=0;i<3;++i)f(); CK(cudaDeviceSynchronize());
  for(int i=0;i<reps;++i){cudaEventRecord(a);f();cudaEventRecord(b);cudaEventSynchronize(b);float ms;cudaEventElapsedTime(&ms,a,b);t.push_back(ms*1000);} CK(cudaGetLastError()); return med(t);}
int main(int argc,char**argv){
  int lg=argc>1?atoi(argv[1]):28; long n=1L<<lg; long tiles=n/TILE; int sms; cudaDeviceGetAttribute(&sms,cudaDevAttrMultiProcessorCount,0);
  float*in; float*part; float*out; CK(cudaMalloc(&in,n*4)); CK(cudaMalloc(&part,tiles*4)); CK(cudaMalloc(&out,4));
  std::vector<float> h(n); for(long i=0;i<n;++i) h[i]=(float)((i*2654435761u)%1000)/1000.f-0.5f; CK(cudaMemcpy(in,h.data(),n*4,cudaMemcpyHostToDevice));
  // check: sum of partials vs host double
  double ref=0; for(long i=0;i<n;++i) ref+=h[i];
  auto check=[&](const char*name,long np){std::vector<float> p(np); CK(cudaMemcpy(p.data(),part,np*4,cudaMemcpyDeviceToHost)); double s=0; for(float x:p)s+=x; if(fabs(s-ref)>1e-3*n*1e-3+1) printf("MISMATCH %s %f %f\n",name,s,ref);};
  size_t tb=0; void*tmp=nullptr; cub::DeviceReduce::Sum(tmp,tb,in,out,n); CK(cudaMalloc(&tmp,tb));
  float tc=timeit([&]{cub::DeviceReduce::Sum(tmp,tb,in,out,n);});
  printf("n=2^%d sms=%d cub %.1f us (%.0f GB/s)\n",lg,sms,tc,n*4/tc/1e3);
  auto row=[&](const char*name,float t,long np){check(name,np); printf("%-28s %8.1f us  %.3fx cub  %.0f GB/s\n",name,t,tc/t,n*4/t/1e3);};
#define KC(K,M) row("kcontig K=" #K " mode=" #M, timeit([&]{kcontig<K,M><<<(tiles+K-1)/K,256>>>(in,tiles,part);}), tiles);
  KC(1,0) KC(1,1) KC(1,2) KC(1,3) KC(16,0) KC(16,3)
  unsigned* tick; CK(cudaMalloc(&tick,65536*4)); CK(cudaMemset(tick,0,65536*4)); float* part2; CK(cudaMalloc(&part2,(tiles+4096)*4)); std::swap(part,part2);
#define KT(K,F) row("kticket K=" #K " fence=" #F, timeit([&]{kticket<K,F><<<(tiles+K-1)/K,256>>>(in,tiles,part,tick);}), tiles);
  KT(1,0) KT(1,1) KT(1,2) KT(2,1) KT(4,1) KT(16,1) KT(16,2)
  std::swap(part,part2);
  for(int occ: {5}){ 
#define GS(D,M) {char nm[64]; snprintf(nm,64,"gstride D=%d m=%d g=%dx",D,M,occ); row(nm, timeit([&]{gstride<D,M><<<sms*occ,256>>>(in,tiles,part);}), tiles);}
#define ES(D,M) {char nm[64]; snprintf(nm,64,"evensh D=%d m=%d g=%dx",D,M,occ); row(nm, timeit([&]{evensh<D,M><<<sms*occ,256>>>(in,tiles,part);}), tiles);}
    GS(1,0) GS(2,0) GS(2,3) GS(3,0) ES(1,0) ES(2,0) ES(2,3)
    {char nm[64]; snprintf(nm,64,"gsacc g=%dx",occ); row(nm, timeit([&]{gsacc<0><<<sms*occ,256>>>(in,tiles,part);}), sms*occ);}
  }
  return 0;
}
