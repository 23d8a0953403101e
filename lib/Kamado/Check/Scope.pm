package Kamado::Check::Scope;
use 5.024;
use strict;
use warnings;

use Kamado::Check::Hazard qw(hazard words symbols in_named_sub in_begin assigned is_local);

# Scope, packages and compile-time effects (doc/CGI-HAZARDS.md B) that
# the source shows; Kamado::Check::Compiled adds what compiling shows.

# what a compile-time value must not depend on: it is then frozen for
# every request of the worker (time, randomness, files, processes)
my @VOLATILE = qw(time localtime gmtime rand srand open sysopen opendir readpipe qx stat lstat getppid);
my $VOLATILE_RE = qr/\A(?:-[MAC]|\$\$)\z/;
# the package variables every module has and nobody changes per request
my $DECLARATIVE = qr/\A[\$\@%](?:VERSION|ISA|EXPORT|EXPORT_OK|EXPORT_TAGS|AUTOLOAD)\z/;

sub hazards {
    my ($class, $f, $c) = @_;
    my ($doc, $p) = ($f->{doc}, $f->{path});
    my @h;
    my @packages = grep { $_->namespace ne 'main' } @{ $doc->find('PPI::Statement::Package') || [] };
    # B3: the package name as a value (printed, compared), where under
    # CGI it is main
    if (!@packages) {
        for my $w (words($doc, '__PACKAGE__')) {
            my $next = $w->snext_sibling;
            next if $next && $next->isa('PPI::Token::Operator') && $next->content eq '->';
            push @h, hazard(B3 => $p, $w->line_number, fork =>
                '__PACKAGE__ as a value: in-process it is the script\'s own package, not main');
            last;
        }
        for my $s (symbols($doc, qr/\A%(?:main)?::\z/)) {
            push @h, hazard(B3 => $p, $s->line_number, fork => 'walks the symbol table of main, which in-process is not the script\'s');
            last;
        }
        for my $w (words($doc, 'bless')) {
            my $args = $w->snext_sibling;
            my $list = $args && $args->isa('PPI::Structure::List') ? $args->content : $w->statement->content;
            next if $list =~ /,/;
            push @h, hazard(B3 => $p, $w->line_number, fork =>
                'one-argument `bless`: the object\'s class is the script\'s in-process package, not main');
            last;
        }
    }
    # B6: compile-time values that depend on the moment or the outside
    for my $node (@{ $doc->find(sub {
        ($_[1]->isa('PPI::Statement::Scheduled') && $_[1]->type eq 'BEGIN')
            || ($_[1]->isa('PPI::Statement::Include') && $_[1]->type eq 'use' && ($_[1]->module // '') =~ /\A(?:constant|vars)\z/)
    }) || [] }) {
        my ($what) = grep { defined } (words($node, @VOLATILE),
            @{ $node->find(sub { $_[1]->isa('PPI::Token::Operator') && $_[1]->content =~ $VOLATILE_RE
                || $_[1]->isa('PPI::Token::Magic') && $_[1]->content eq '$$'
                || $_[1]->isa('PPI::Token::QuoteLike::Backtick') || $_[1]->isa('PPI::Token::QuoteLike::Command') }) || [] });
        next unless $what;
        push @h, hazard(B6 => $p, $what->line_number, perlrun => 'a compile-time value from `' . $what->content
            . '` (' . ($node->isa('PPI::Statement::Include') ? 'use ' . $node->module : 'BEGIN') . '): kept compiled, it would stay the first request\'s');
    }
    # B7
    if (my ($end) = grep { $_->type eq 'END' } @{ $doc->find('PPI::Statement::Scheduled') || [] }) {
        push @h, hazard(B7 => $p, $end->line_number, registry => 'an END block: Kamado runs it after each run');
    }
    # B8: /o on an interpolated pattern; state variables
    for my $re (@{ $doc->find(sub {
        ($_[1]->isa('PPI::Token::Regexp') || $_[1]->isa('PPI::Token::QuoteLike::Regexp')) && $_[1]->get_modifiers->{o}
    }) || [] }) {
        next unless $re->content =~ /[\$\@]/;
        push @h, hazard(B8 => $p, $re->line_number, perlrun => 'a /o pattern that interpolates: compiled once, it keeps the first request\'s value');
    }
    for my $w (words($doc, 'state')) {
        next unless $w->snext_sibling && $w->snext_sibling->isa('PPI::Token::Symbol');
        push @h, hazard(B8 => $p, $w->line_number, perlrun => 'state ' . $w->snext_sibling->content
            . ': it keeps its value from one request to the next');
    }
    if (my ($w) = words($doc, 'each')) {
        push @h, hazard(B8 => $p, $w->line_number, registry => '`each` iterator: package hashes, their iterators too, are put back after each run');
    }
    # B9
    for my $w (words($doc, 'caller')) {
        next if in_named_sub($w);
        push @h, hazard(B9 => $p, $w->line_number, registry => '`caller` at file scope: Kamado shows no frame past the script\'s top');
        last;
    }
    # B10
    if (my ($sub) = grep { ($_->name // '') eq 'handler' } @{ $doc->find('PPI::Statement::Sub') || [] }) {
        push @h, hazard(B10 => $p, $sub->line_number, registry => 'a sub named handler: Kamado\'s wrapper has another name');
    }
    if (!$f->{is_script} && !@packages && $f->{path} !~ /\.pm\z/) {
        push @h, hazard(B4 => $p, 1, registry => 'a library without a package line: compiled into each script\'s own package, its top level run on each request');
    }
    # B5: a library of the tree with a package of its own keeps its
    # package variables from one request to the next in-process (the
    # script's own packages are put back; a module's are not)
    if (!$f->{is_script} && @packages) {
        my %declared;
        for my $v (@{ $doc->find('PPI::Statement::Variable') || [] }) {
            next unless $v->type eq 'our';
            $declared{$_} = $v for grep { $_ !~ $DECLARATIVE } $v->variables;
        }
        for my $inc (@{ $doc->find('PPI::Statement::Include') || [] }) {
            next unless ($inc->module // '') eq 'vars';
            $declared{$_} = $inc for grep { $_ !~ $DECLARATIVE } map { $_->isa('PPI::Token::QuoteLike::Words') ? $_->literal : $_->string }
                @{ $inc->find(sub { $_[1]->isa('PPI::Token::QuoteLike::Words') || $_[1]->isa('PPI::Token::Quote') }) || [] };
        }
        if (my ($name) = sort keys %declared) {
            push @h, hazard(B5 => $p, $declared{$name}->line_number, fork => "a module of the tree (package "
                . $packages[0]->namespace . ") with package variables ($name): in-process they are kept between requests");
        }
        # output from its top level: a module is loaded once per worker,
        # so only the worker's first request would get it
        my @out =
            grep { !in_named_sub($_) && !in_begin($_) && !in_anon_sub($_) } words($doc, qw(print printf say syswrite));
        my $module = $packages[0]->namespace;
        my $why = 'that prints while it loads: in-process it loads once, for the first request only';
        push @h, hazard(B5 => $p, $out[0]->line_number, fork => "a module of the tree (package $module) $why") if @out;
    }
    push @h, foreign($doc, $p, [map { $_->namespace } @packages], module => !$f->{is_script} && @packages ? 1 : 0);
    return @h;
}

# Whether EL is inside an anonymous sub (`sub { ... }`).
sub in_anon_sub {
    my ($el) = @_;
    for (my $p = $el->parent; $p; $p = $p->parent) {
        next unless $p->isa('PPI::Structure::Block');
        my $prev = $p->sprevious_sibling;
        return 1 if $prev && $prev->isa('PPI::Token::Word') && $prev->content eq 'sub';
    }
    return 0;
}

# B13: another package's variables set ($Data::Dumper::Indent = 1, push
# @Foo::ISA, *Foo::x = ...). While a script runs, those its code and its
# package-less libraries name are put back after the run
# (Kamado::CGI::InProcess::Snapshot); set while compiling (BEGIN), or by a module of
# the tree (loaded once, its code not looked at), they stay for every
# later script of the worker: a process of its own. `local` is safe.
#
# foreign(DOC, PATH, [own packages], module => whether PATH is a module
# of the tree, line => the line DOC starts at) -> the B13 hazards of DOC.
sub foreign {
    my ($doc, $path, $packages, %a) = @_;
    my %own = map { ($_ => 1) } @$packages;
    my $module = $a{module};
    my $offset = ($a{line} // 1) - 1;
    my @h;
    for my $s (symbols($doc, qr/\A[\$\@%*](?:\w+::)+\w+\z/)) {
        my ($package, $name) = $s->content =~ /\A.((?:\w+::)*\w+)::(\w+)\z/ or next;
        next if $package eq 'main' || $own{$package} || $package =~ /\AKamado\b/;
        next unless assigned($s) || _pushed($s);
        next if is_local($s) || ($s->statement && ($s->statement->schild(0) // '') eq 'local');
        my $begin = in_begin($s);
        my $what = 'sets ' . $s->content;
        my $line = $s->line_number + $offset;
        if (!$begin && !$module) {
            push @h,
                hazard(B13 => $path, $line, registry => "$what, another package's variable: put back after each run");
            next;
        }
        my $stays = 'it stays set for every later script of the worker';
        my $why =
            $begin
            ? "$what while compiling: $stays (set it at run time)"
            : "$what in a module loaded once per worker: $stays (use `local`)";
        push @h, hazard(B13 => $path, $line, fork => $why);
    }
    return @h;
}

# Whether EL is the array a push, unshift or splice changes.
sub _pushed {
    my ($el) = @_;
    my $prev = $el->sprevious_sibling;
    # (push(@A::b, ...): the word before the list)
    my $list = !$prev && $el->parent && $el->parent->isa('PPI::Statement::Expression') && $el->parent->parent;
    $prev = $list->sprevious_sibling if $list && $list->isa('PPI::Structure::List');
    return $prev && $prev->isa('PPI::Token::Word') && $prev->content =~ /\A(?:push|unshift|splice)\z/ ? 1 : 0;
}

1;
__END__

=head1 NAME

Kamado::Check::Scope - kamado check: scope, package and compile-time hazards

=cut
