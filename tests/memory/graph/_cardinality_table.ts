/**
 * The cardinality table (issue 14 item 1): statements in Chinese and English as the owner says
 * them and the model stores them, one a day, and the exact open and closed facts afterwards.
 * cardinality_test.ts drives each row through the model's own tools.
 */

/** One statement: what the owner said and how the model stored it. */
export type Statement =
  | [kind: "commit" | "relate" | "trait" | "close", said: string, s: string, p: string, o: string]
  /** A fact that began `days` before the day it was said (an old fact learned late). */
  | [kind: "late", said: string, s: string, p: string, o: string, days: number];

export interface Row {
  name: string;
  statements: Statement[];
  /** Every open fact afterwards: "s —p→ o". */
  open: string[];
  /** Every closed fact afterwards: "s —p→ o (dFROM–dTO)", days counted from the first statement. */
  closed: string[];
}

export const TABLE: Row[] = [
  {
    name: "a second pet is one more pet",
    statements: [
      ["commit", "I have a cat called Mimi.", "owner", "has_pet", "Mimi"],
      ["commit", "We adopted a dog, Rex, last weekend.", "owner", "has_pet", "Rex"],
    ],
    open: ["owner —has_pet→ Mimi", "owner —has_pet→ Rex"],
    closed: [],
  },
  {
    name: "two sisters via person_relate",
    statements: [
      ["relate", "Ann is Bo's sister.", "Ann", "sister_of", "Bo"],
      ["relate", "Ann and Cy are sisters too.", "Ann", "sister_of", "Cy"],
    ],
    open: ["Ann —sister_of→ Bo", "Ann —sister_of→ Cy"],
    closed: [],
  },
  {
    name: "a move closes the old home",
    statements: [
      ["commit", "I live in Oslo.", "owner", "lives_in", "Oslo"],
      ["commit", "We moved to Bergen last month.", "owner", "lives in", "Bergen"],
    ],
    open: ["owner —lives_in→ Bergen"],
    closed: ["owner —lives_in→ Oslo (d1–d2)"],
  },
  {
    name: "搬家：居住地只有一个",
    statements: [
      ["commit", "我住在北京。", "owner", "居住地", "北京"],
      ["commit", "我们上个月搬到上海了。", "owner", "居住地", "上海"],
      ["commit", "现在住在杭州。", "owner", "居住地", "杭州"],
    ],
    open: ["owner —居住地→ 杭州"],
    closed: ["owner —居住地→ 北京 (d1–d2)", "owner —居住地→ 上海 (d2–d3)"],
  },
  {
    name: "喜好 add up",
    statements: [
      ["commit", "我喜欢火锅。", "owner", "喜好", "火锅"],
      ["commit", "烧烤我也很喜欢。", "owner", "喜好", "烧烤"],
      ["commit", "I love jazz.", "owner", "likes", "jazz"],
      ["commit", "And I like hiking.", "owner", "likes", "hiking"],
    ],
    open: [
      "owner —likes→ hiking",
      "owner —likes→ jazz",
      "owner —喜好→ 火锅",
      "owner —喜好→ 烧烤",
    ],
    closed: [],
  },
  {
    name: "a job change closes the old job",
    statements: [
      ["commit", "I work as a nurse.", "owner", "job", "nurse"],
      ["commit", "I retrained; I'm a teacher now.", "owner", "job", "teacher"],
    ],
    open: ["owner —job→ teacher"],
    closed: ["owner —job→ nurse (d1–d2)"],
  },
  {
    name: "换工作：职业与工作单位",
    statements: [
      ["commit", "我是程序员。", "owner", "职业", "程序员"],
      ["commit", "我在阿里巴巴工作。", "owner", "工作单位", "阿里巴巴"],
      ["commit", "我跳槽去腾讯了，做产品经理。", "owner", "工作单位", "腾讯"],
      ["commit", "我跳槽去腾讯了，做产品经理。", "owner", "职业", "产品经理"],
    ],
    open: ["owner —工作单位→ 腾讯", "owner —职业→ 产品经理"],
    closed: ["owner —工作单位→ 阿里巴巴 (d2–d3)", "owner —职业→ 程序员 (d1–d4)"],
  },
  {
    name: "employer in English",
    statements: [
      ["commit", "I work at Acme.", "owner", "works_at", "Acme"],
      ["commit", "Started at Globex on Monday.", "owner", "works_at", "Globex"],
    ],
    open: ["owner —works_at→ Globex"],
    closed: ["owner —works_at→ Acme (d1–d2)"],
  },
  {
    name: "年龄 grows, the same birthday is reinforced",
    statements: [
      ["commit", "我今年30岁。", "owner", "年龄", "30"],
      ["commit", "My birthday is March 3.", "owner", "birthday", "March 3"],
      ["commit", "今天我31岁了！", "owner", "年龄", "31"],
      ["commit", "Yes, March 3 is my birthday.", "owner", "birthday", "March 3"],
    ],
    open: ["owner —birthday→ March 3", "owner —年龄→ 31"],
    closed: ["owner —年龄→ 30 (d1–d3)"],
  },
  {
    name: "friends and acquaintances add up",
    statements: [
      ["commit", "Tom is my oldest friend.", "owner", "friend_of", "Tom"],
      ["commit", "小李是我大学同学，我们是好朋友。", "owner", "friend_of", "小李"],
      ["commit", "I know Sara from the climbing gym.", "owner", "knows", "Sara"],
    ],
    open: ["owner —friend_of→ Tom", "owner —friend_of→ 小李", "owner —knows→ Sara"],
    closed: [],
  },
  {
    name: "languages and places visited",
    statements: [
      ["commit", "I speak Norwegian.", "owner", "speaks", "Norwegian"],
      ["commit", "English too, of course.", "owner", "speaks", "English"],
      ["commit", "我去过成都。", "owner", "去过", "成都"],
      ["commit", "We visited Rome in May.", "owner", "去过", "Rome"],
    ],
    open: [
      "owner —speaks→ English",
      "owner —speaks→ Norwegian",
      "owner —去过→ Rome",
      "owner —去过→ 成都",
    ],
    closed: [],
  },
  {
    name: "spouse is functional through memory_commit",
    statements: [
      ["commit", "I'm married to Kim.", "owner", "spouse", "Kim"],
      ["commit", "After the divorce I married Lee.", "owner", "spouse", "Lee"],
    ],
    open: ["owner —spouse→ Lee"],
    closed: ["owner —spouse→ Kim (d1–d2)"],
  },
  {
    name: "person_relate never replaces, even a functional predicate",
    statements: [
      ["relate", "Kim is married to Lee.", "Kim", "spouse", "Lee"],
      [
        "relate",
        "Kim also married Pat (the model relates, it does not replace).",
        "Kim",
        "spouse",
        "Pat",
      ],
    ],
    open: ["Kim —spouse→ Lee", "Kim —spouse→ Pat"],
    closed: [],
  },
  {
    name: "traits supersede per trait",
    statements: [
      ["trait", "Ann seems calm lately.", "Ann", "mood", "calm"],
      ["trait", "Ann's favourite colour is green.", "Ann", "favourite_colour", "green"],
      ["trait", "Ann is happy now that she got the job.", "Ann", "mood", "happy"],
    ],
    open: ["Ann —trait:favourite_colour→ green", "Ann —trait:mood→ happy"],
    closed: ["Ann —trait:mood→ calm (d1–d3)"],
  },
  {
    name: "an explicit close retires one pet and keeps the other",
    statements: [
      ["commit", "我养了一只猫，叫咪咪。", "owner", "宠物", "咪咪"],
      ["commit", "还有一只狗叫旺财。", "owner", "宠物", "旺财"],
      ["close", "咪咪上个月走了。", "owner", "宠物", "咪咪"],
    ],
    open: ["owner —宠物→ 旺财"],
    closed: ["owner —宠物→ 咪咪 (d1–d3)"],
  },
  {
    name: "children and family add up",
    statements: [
      ["commit", "我有两个孩子，老大叫小明。", "owner", "孩子", "小明"],
      ["commit", "老二叫小红。", "owner", "孩子", "小红"],
      ["relate", "Mia is my daughter.", "owner", "parent_of", "Mia"],
      ["relate", "Leo is my son.", "owner", "parent_of", "Leo"],
    ],
    open: [
      "owner —parent_of→ Leo",
      "owner —parent_of→ Mia",
      "owner —孩子→ 小明",
      "owner —孩子→ 小红",
    ],
    closed: [],
  },
  {
    name: "a corrected name closes the wrong one",
    statements: [
      ["commit", "我叫王伟。", "owner", "姓名", "王伟"],
      ["commit", "不好意思，我叫王小伟。", "owner", "姓名", "王小伟"],
    ],
    open: ["owner —姓名→ 王小伟"],
    closed: ["owner —姓名→ 王伟 (d1–d2)"],
  },
  {
    name: "hobbies, groups and possessions add up",
    statements: [
      ["commit", "My hobbies: climbing.", "owner", "hobby", "climbing"],
      ["commit", "And chess on Sundays.", "owner", "hobby", "chess"],
      ["commit", "I sing in the choir.", "owner", "member_of", "choir"],
      ["commit", "I joined the chess club.", "owner", "member_of", "chess club"],
      ["commit", "I bought a bike.", "owner", "owns", "bike"],
      ["commit", "我买了辆车。", "owner", "owns", "车"],
    ],
    open: [
      "owner —hobby→ chess",
      "owner —hobby→ climbing",
      "owner —member_of→ chess club",
      "owner —member_of→ choir",
      "owner —owns→ bike",
      "owner —owns→ 车",
    ],
    closed: [],
  },
  {
    name: "origin is one; an old home learned late is stored closed",
    statements: [
      ["commit", "我是四川人。", "owner", "籍贯", "四川"],
      ["commit", "I live in Bergen.", "owner", "lives_in", "Bergen"],
      ["late", "Before Bergen I lived in Paris for years.", "owner", "lives_in", "Paris", 30],
    ],
    open: ["owner —lives_in→ Bergen", "owner —籍贯→ 四川"],
    closed: ["owner —lives_in→ Paris (d-27–d2)"],
  },
  {
    name: "works_with and likes of another person add up",
    statements: [
      ["commit", "Ann works with Bo.", "Ann", "works_with", "Bo"],
      ["commit", "She works with Cy as well.", "Ann", "works_with", "Cy"],
      ["commit", "Ann likes tea.", "Ann", "likes", "tea"],
      ["commit", "Ann likes coffee too.", "Ann", "likes", "coffee"],
    ],
    open: [
      "Ann —likes→ coffee",
      "Ann —likes→ tea",
      "Ann —works_with→ Bo",
      "Ann —works_with→ Cy",
    ],
    closed: [],
  },
];
