generate-lines -path /root/wmt14.en-fr.fconv-float/model.th7 -sourcedict /root/wmt14.en-fr.fconv-float/dict.en.th7 -targetdict /root/wmt14.en-fr.fconv-float/dict.fr.th7 -beam 5 -input -
