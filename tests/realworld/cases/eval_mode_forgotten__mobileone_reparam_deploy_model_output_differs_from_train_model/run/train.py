`tmp_model = copy.deepcopy(model)
    for module in tmp_model.modules():
        if hasattr(module, 'switch_to_deploy'):
            module.switch_to_deploy()
    print('swith done. Checking....')
    deploy_model = mobileone_s0(deploy=True)
    deploy_model.eval()
    deploy_model.load_state_dict(tmp_model.state_dict())

    input = {'image': torch.randn((1, 3, 112, 112))}
    a = model(input)
    b = deploy_model(input)
    print(a.shape)
    print(b.shape)
    print((a-b).mean())`
