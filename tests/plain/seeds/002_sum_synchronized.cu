__global__ void sum_synchronized(float *a)
    {
    	__shared__ float shared_mem[256];
     	int idx = threadIdx.x;
     	shared_mem[idx] = a[idx];
     	__syncthreads();
     	for(int threshold=128; idx<threshold; threshold>>=1) {
         	shared_mem[idx]+=shared_mem[idx+threshold];
         	__syncthreads();
     	}
     	if (idx==0) {
         	a[0]=shared_mem[0];
     	}
    }
