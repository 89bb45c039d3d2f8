__global__ void sum_synchronized(float *a)
    {
     	int idx = threadIdx.x;
     	float val = a[idx];
    	for (int offset = 16; offset > 0; offset /= 2) {
        	val += __shfl_down_sync(0xffffffff, val, offset);    
    	}
    	if(idx==0) {
        	a[0]=val;
    	}
    }
