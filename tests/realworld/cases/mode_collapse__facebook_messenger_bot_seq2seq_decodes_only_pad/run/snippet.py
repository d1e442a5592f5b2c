def idsToSentence(ids, wList):

    print "ids", type(ids)
    EOStokenIndex = wList.index('<EOS>')
    padTokenIndex = wList.index('<pad>')
    print "indexes", EOStokenIndex, padTokenIndex
    myStr = ""
    listOfResponses=[]

    for num in ids:

        if (num[0] == EOStokenIndex or num[0] == padTokenIndex):

            myStr = ""
        else:
            myStr = myStr + wList[num[0]] + " "

    if myStr:
        listOfResponses.append(myStr)
    listOfResponses = [i for i in listOfResponses if i]
    print "listof restp", listOfResponses[:10]
    return listOfResponses
