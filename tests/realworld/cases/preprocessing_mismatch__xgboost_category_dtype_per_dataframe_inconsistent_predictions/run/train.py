A['region'] = A['region'].astype('category') 
B['region'] = B['region'].astype('category') 
