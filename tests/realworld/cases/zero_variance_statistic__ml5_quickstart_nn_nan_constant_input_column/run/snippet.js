const inputs = {
    r: item.r, 
    //g: item.g, 
    //b: item.b
};
