__global__ void sum(float *a)
    {    	
       __shared__ float shared_mem[32];     	
       int idx = threadIdx.x;     	
       shared_mem[idx] = a[idx];     	
       for(int threshold=16; idx<threshold; threshold>>=1)
            { shared_mem[idx]+=shared_mem[idx+threshold]; }     	
       if (idx==0) {         	
              a[0]=shared_mem[0];     	
       }
    }
