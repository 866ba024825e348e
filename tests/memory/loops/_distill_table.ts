/** The distiller's table of statements and the facts each states (rules and archive tests). */
import { DISTILLED } from "../../../memory/loops/distiller.ts";

const { name, home, likes, age, job, workplace, origin, birthplace, pet, species } = DISTILLED;

/**
 * [text, expected facts]: "predicate:object" about the speaker, or "subject predicate:object"
 * for a fact about someone else (a pet's species).
 */
export const DISTILL_TABLE: [string, string[]][] = [
  // Chinese: name, home, age
  ["我叫小明。", [`${name}:小明`]],
  ["我的名字是王芳，很高兴认识你", [`${name}:王芳`]],
  ["我住在北京朝阳区，离公司很近", [`${home}:北京朝阳区`]],
  ["我家在上海", [`${home}:上海`]],
  ["我们上个月搬到杭州了", [`${home}:杭州`]],
  ["我三十岁", [`${age}:30`]],
  ["我今年25岁了", [`${age}:25`]],
  ["我二十五岁", [`${age}:25`]],
  // Chinese: likes, one fact per coordinated object; a shared verb is kept
  ["我喜欢猫和狗", [`${likes}:猫`, `${likes}:狗`]],
  ["我爱吃火锅", [`${likes}:吃火锅`]],
  ["我喜欢吃火锅和烧烤", [`${likes}:吃火锅`, `${likes}:吃烧烤`]],
  ["我喜欢看电影、听音乐还有打篮球", [`${likes}:看电影`, `${likes}:听音乐`, `${likes}:打篮球`]],
  ["我的爱好是游泳和爬山", [`${likes}:游泳`, `${likes}:爬山`]],
  // Chinese: job and work place
  ["我的工作是程序员", [`${job}:程序员`]],
  ["我在阿里巴巴工作", [`${workplace}:阿里巴巴`]],
  ["我现在在腾讯上班", [`${workplace}:腾讯`]],
  ["我在医院当护士", [`${workplace}:医院`, `${job}:护士`]],
  // Chinese: origin and birthplace
  ["我来自四川成都", [`${origin}:四川成都`]],
  ["我是从湖南来的", [`${origin}:湖南`]],
  ["我老家在山东", [`${origin}:山东`]],
  ["我是四川人，现在在深圳", [`${origin}:四川`]],
  ["我出生在武汉", [`${birthplace}:武汉`]],
  // Chinese: family
  ["我妹妹叫小红", ["妹妹:小红"]],
  ["我老婆叫李娜", ["妻子:李娜"]],
  ["我的妈妈叫张秀英", ["母亲:张秀英"]],
  ["我有两个儿子，分别叫大宝和二宝", ["儿子:大宝", "儿子:二宝"]],
  // Chinese: pets
  ["我养了一只猫，叫咪咪", [`${pet}:咪咪`, `咪咪 ${species}:猫`]],
  ["我家的狗叫旺财", [`${pet}:旺财`, `旺财 ${species}:狗`]],
  ["我有一只兔子。", [`${pet}:兔子`]],
  ["我养了两只猫，叫大黄和小黑", [
    `${pet}:大黄`,
    `大黄 ${species}:猫`,
    `${pet}:小黑`,
    `小黑 ${species}:猫`,
  ]],
  // English: name, home, age
  ["My name is John Smith and I live in Boston.", [`${name}:John Smith`, `${home}:Boston`]],
  ["I live in a small town near Lyon", [`${home}:a small town near Lyon`]],
  ["We just moved to Bergen.", [`${home}:Bergen`]],
  ["I'm 42 years old", [`${age}:42`]],
  ["I am twenty-five years old", [`${age}:25`]],
  // English: likes
  ["I love hiking", [`${likes}:hiking`]],
  ["I really like jazz, especially Coltrane", [`${likes}:jazz`]],
  ["I like to swim", [`${likes}:swim`]],
  ["I love cats and dogs", [`${likes}:cats`, `${likes}:dogs`]],
  ["I enjoy jazz, hiking and sushi.", [`${likes}:jazz`, `${likes}:hiking`, `${likes}:sushi`]],
  // English: job and work place
  ["I work as a software engineer at Google.", [`${job}:software engineer`, `${workplace}:Google`]],
  ["I work at Acme Corp.", [`${workplace}:Acme Corp`]],
  ["I'm working for the city council", [`${workplace}:the city council`]],
  ["My job is a nurse", [`${job}:nurse`]],
  // English: origin and birthplace
  ["I'm from Norway", [`${origin}:Norway`]],
  ["I grew up in Trondheim", [`${origin}:Trondheim`]],
  ["I was born in Oslo", [`${birthplace}:Oslo`]],
  ["I was born in May", []],
  // English: family
  ["My sister Ann lives in Oslo.", ["姐妹:Ann"]],
  ["My wife's name is Kim", ["妻子:Kim"]],
  ["I have two kids, Mia and Leo.", ["孩子:Mia", "孩子:Leo"]],
  // English: pets
  ["I have a dog named Rex", [`${pet}:Rex`, `Rex ${species}:dog`]],
  ["We adopted a cat, Mimi.", [`${pet}:Mimi`, `Mimi ${species}:cat`]],
  ["My cat is called Tom", [`${pet}:Tom`, `Tom ${species}:cat`]],
  ["I have two hamsters.", [`${pet}:hamster`]],
  // Negatives: questions, negations, pronouns and clauses state no fact
  ["我叫什么名字？", []],
  ["我不喜欢香菜", []],
  ["我爱你", []],
  ["我爱人在医院工作", []],
  ["我在想工作的事", []],
  ["我在家做饭", []],
  ["我喜欢跟朋友一起吃饭", []],
  ["我是个好人", []],
  ["我有猫毛过敏", []],
  ["I like that you remember things.", []],
  ["I like it", []],
  ["I love you", []],
  ["Do I like jazz?", []],
  ["I don't like rain", []],
  ["I'd like a coffee", []],
  ["My name is not important", []],
  ["My sister is a doctor", []],
  ["I have a dog allergy", []],
];

/** The table's facts as the strings it writes them. */
export function shown(facts: { subject: string; predicate: string; object: string }[]): string[] {
  return facts.map((t) =>
    t.subject === "owner" ? `${t.predicate}:${t.object}` : `${t.subject} ${t.predicate}:${t.object}`
  );
}
