__global__ void sum_synchronized(float *a)
    {
     	int idx = threadIdx.x;
     	float val = a[idx];
     	__shared__ float shared_mem[8];
    	for (int offset = 16; offset > 0; offset /= 2) {
        	val += __shfl_down_sync(0xffffffff, val, offset);    
    	}
    	if(idx%32==0) {
        	shared_mem[idx>>5]=val;
    	}
    	__syncthreads();
    	if (idx<=8) {
    		val=shared_mem[idx];
    		val += __shfl_down_sync(0xffffffff, val, 4);    
    		val += __shfl_down_sync(0xffffffff, val, 2);    
    		val += __shfl_down_sync(0xffffffff, val, 1);
		if (idx==0) {
    		a[0]=val;
		    }
        }
   }
