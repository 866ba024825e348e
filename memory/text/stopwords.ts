/** Stop words left out of tokens and keywords: function words of Chinese and English. */

const ZH = `的 了 和 是 就 都 而 及 与 着 或 一个 没有 我们 你们 他们 她们 它们 我 你 他 她 它 您
咱们 自己 这 那 这个 那个 这些 那些 这里 那里 这样 那样 这么 那么 什么 怎么 怎样 为什么 哪 哪里 哪个
谁 吗 呢 吧 啊 呀 哦 嗯 哈 啦 嘛 么 之 其 此 为 以 于 在 从 到 对 把 被 让 给 向 跟 同 比 由 因 因为
所以 但 但是 可是 然而 而且 并且 如果 虽然 即使 还是 或者 不 也 又 还 再 很 太 最 更 非常 已经 曾经 正在
将 会 能 可以 可能 应该 要 想 得 地 过 上 下 中 里 个 些 每 各 有 没 无 一 一些 一下 一样 一直 一起 就是
只是 只 才 刚 刚才 现在 然后 之后 以后 之前 以前 时候 时 后 前 等 等等 啥 嘿 哎 喂 诶 呗 罢了 而已 似的
一般 当 当然 比如 例如 关于 对于 通过 根据 按照 除了 今 其他 另外 别的 所有 任何 每个 某 某些 个 次 号
是的 不是 好的 好吧 对的 真的 的话 来说 起来 出来 下来 上去 进来 回来 过来 一点 有点 有些 有的 还有 所 被 `;

const EN = `a about above after again against all am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
don't down during each few for from further had hadn't has hasn't have haven't having he he'd he'll he's
her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's
its itself let's me more most mustn't my myself no nor not of off on once only or other ought our ours
ourselves out over own same shan't she she'd she'll she's should shouldn't so some such than that that's
the their theirs them themselves then there there's these they they'd they'll they're they've this those
through to too under until up very was wasn't we we'd we'll we're we've were weren't what what's when
when's where where's which while who who's whom why why's with won't would wouldn't you you'd you'll
you're you've your yours yourself yourselves also just will would shall may might must one get got
really yes yeah ok okay oh hi hello please thanks thank s t d ll re ve m don didn doesn isn wasn`;

/** Chinese function words (jieba tokens). */
export const ZH_STOP_WORDS: ReadonlySet<string> = new Set(ZH.split(/\s+/).filter(Boolean));

/** English function words, lower case. */
export const EN_STOP_WORDS: ReadonlySet<string> = new Set(EN.split(/\s+/).filter(Boolean));

/** True when `word` (already lower-cased) is a stop word in either language. */
export function isStopWord(word: string): boolean {
  return ZH_STOP_WORDS.has(word) || EN_STOP_WORDS.has(word);
}
