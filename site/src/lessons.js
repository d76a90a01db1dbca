// The lessons, in teaching order: the site's navigation and index are built from this list.
export const LESSONS = [
  { slug: 'why-attention', title: 'Why attention' },
  { slug: 'step-by-step', title: 'Scaled dot-product attention, step by step' },
  { slug: 'scaling', title: 'Why divide by √d_k' },
  { slug: 'self-attention', title: 'Self-attention on your sentence' },
  { slug: 'multi-head', title: 'Multi-head attention' },
  { slug: 'cross-attention', title: 'Cross-attention' },
  { slug: 'masking', title: 'Masking' },
  { slug: 'positions', title: 'Positional encoding' },
  { slug: 'encoder', title: 'Putting it together: the encoder layer' },
  { slug: 'watch-it-learn', title: 'Watch it learn' },
  { slug: 'exercises', title: 'Exercises' },
];
