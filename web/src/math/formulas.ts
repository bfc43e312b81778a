// Every formula on the page, as TeX. vite.config.ts typesets them at build time (no KaTeX in the browser).
export interface Formula {
  tex: string;
  display: boolean;
}

export const formulas = {
  forwardRule: { tex: 'Q = X W_Q,\\qquad K = X W_K,\\qquad V = X W_V', display: true },
  inputShape: { tex: 'X \\in \\mathbb{R}^{B \\times T \\times d_{\\text{model}}}', display: true },
  weightShape: { tex: 'W_Q,\\ W_K,\\ W_V \\in \\mathbb{R}^{d_{\\text{model}} \\times d_{\\text{head}}}', display: true },
  outputShape: { tex: 'Q,\\ K,\\ V \\in \\mathbb{R}^{B \\times T \\times d_{\\text{head}}}', display: true },
  objective: {
    tex: 'L = \\langle Q, U_Q \\rangle + \\langle K, U_K \\rangle + \\langle V, U_V \\rangle',
    display: true,
  },
  inputGradient: {
    tex: '\\bar X = U_Q W_Q^{\\mathsf T} + U_K W_K^{\\mathsf T} + U_V W_V^{\\mathsf T}',
    display: true,
  },
  weightGradient: {
    tex: '\\bar W_Q = X_{(BT)}^{\\mathsf T} U_{Q,(BT)},\\quad \\bar W_K = X_{(BT)}^{\\mathsf T} U_{K,(BT)},\\quad \\bar W_V = X_{(BT)}^{\\mathsf T} U_{V,(BT)}',
    display: true,
  },
  queryBranch: { tex: 'Q = X W_Q', display: false },
  keyBranch: { tex: 'K = X W_K', display: false },
  valueBranch: { tex: 'V = X W_V', display: false },
  symX: { tex: 'X', display: false },
  symB: { tex: 'B', display: false },
  symT: { tex: 'T', display: false },
  symDModel: { tex: 'd_{\\text{model}}', display: false },
  symDHead: { tex: 'd_{\\text{head}}', display: false },
  symWeights: { tex: 'W_Q,\\ W_K,\\ W_V', display: false },
  symU: { tex: 'U_Q,\\ U_K,\\ U_V', display: false },
  symBar: { tex: '\\bar X,\\ \\bar W', display: false },
  symA: { tex: 'a', display: false },
  symN: { tex: 'n', display: false },
  symS: { tex: 's', display: false },
  symTau: { tex: '\\tau', display: false },
  tolerance: { tex: '\\left|\\frac{a}{s} - \\frac{n}{s}\\right| \\le \\tau + r,\\quad s = \\max(1, |a|, |n|)', display: true },
  symR: { tex: 'r', display: false },
} satisfies Record<string, Formula>;

export type FormulaName = keyof typeof formulas;
